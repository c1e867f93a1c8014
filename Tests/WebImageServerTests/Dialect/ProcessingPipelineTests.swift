import Foundation
import Testing
import WebImage
import WebImageServer
import WebImageTestSupport

// The plan's pipeline, run on real images, ends at the planned size, and puts
// the right pixels where gravity, crop, rotate, extend and background say.
@Suite("Proxy processing pipeline")
struct ProcessingPipelineTests {
    static func options(_ text: String) throws -> ProcessingOptions {
        try ProxyURLParser(keys: []).parse(path: "/_/\(text)/plain/http://example.com/a.jpg").options
    }

    /// A red/green/blue/white quadrant image of any size, scaled up from a small one
    /// (drawing large images pixel by pixel is slow in debug builds). The scaling blurs
    /// the quadrant borders: probe well inside the quadrants.
    static func quadrants(_ size: PixelSize) throws -> Image {
        let small = try TestImages.quadrants(width: 8, height: 8)
        return try ResizeTransformer(size: size, mode: .force, enlarge: true).transform(small)
    }

    @Test("S5 every planned size is the size the pipeline produces", arguments: ProcessingPlanTests.sizes)
    func pipelineMatchesPlan(_ example: (String, PixelSize, PixelSize)) throws {
        let options = try Self.options(example.0)
        let plan = options.plan(for: example.1)
        let source = try Self.quadrants(example.1)
        let output = try plan.pipeline.transform(source)
        #expect(output.pixelSize == example.2, "\(example.0) on \(example.1)")
        #expect(output.pixelSize == plan.outputSize)
        #expect(try ProxyTransformer(options: options).transform(source).pixelSize == example.2)
    }

    /// Options on a 1000×500 quadrant image, probe point, expected colour.
    static let probes: [(String, Int, Int, [Int])] = [
        ("rs:fill:500:500/g:we", 250, 125, TestImages.topLeft),
        ("rs:fill:500:500/g:we", 250, 375, TestImages.bottomLeft),
        ("rs:fill:500:500/g:ea", 250, 125, TestImages.topRight),
        ("rs:fill:500:500/g:we:250:0", 100, 125, TestImages.topLeft),
        ("rs:fill:500:500/g:we:250:0", 400, 125, TestImages.topRight),
        ("rs:fill:500:500/g:fp:1:0", 250, 375, TestImages.bottomRight),
        ("rs:fill:100:100/dpr:5/g:ea", 250, 125, TestImages.topRight),
        ("c:0.5:0.5:soea", 250, 125, TestImages.bottomRight),
        ("c:500:250:nowe/rs:fit:100:100", 50, 25, TestImages.topLeft),
        ("rot:90", 125, 250, TestImages.bottomLeft),
        ("rot:90", 375, 250, TestImages.topLeft),
        ("rot:180", 250, 125, TestImages.bottomRight),
        ("rot:270/rs:fit:250:250", 31, 62, TestImages.topRight),
        ("rs:fit:1000:1000:0:1:so/bg:ff00ff", 500, 250, [255, 0, 255]),
        ("rs:fit:1000:1000:0:1:so/bg:ff00ff", 250, 625, TestImages.topLeft),
        ("rs:fit:1200:1000:0:1:nowe:100:0/bg:00ff00", 50, 100, [0, 255, 0]),
        ("rs:fit:1200:1000:0:1:nowe:100:0/bg:00ff00", 150, 100, TestImages.topLeft),
        ("w:2000/ex:1/bg:0:0:255", 100, 250, [0, 0, 255]),
        ("w:2000/ex:1/bg:0:0:255", 1900, 250, [0, 0, 255]),
        ("w:2000/ex:1/bg:0:0:255", 750, 125, TestImages.topLeft),
        ("pd:10:20:30:40/bg:ff00ff", 20, 200, [255, 0, 255]),
        ("pd:10:20:30:40/bg:ff00ff", 1050, 200, [255, 0, 255]),
        ("pd:10:20:30:40/bg:ff00ff", 500, 5, [255, 0, 255]),
        ("pd:10:20:30:40/bg:ff00ff", 500, 530, [255, 0, 255]),
        ("pd:10:20:30:40/bg:ff00ff", 290, 135, TestImages.topLeft),
        ("pd:10:20:30:40/bg:ff00ff", 790, 385, TestImages.bottomRight),
    ]

    @Test("S5 gravity, offsets, crop, rotate and extend put the right pixels in place", arguments: probes)
    func probe(_ example: (String, Int, Int, [Int])) throws {
        let options = try Self.options(example.0)
        let output = try options.plan(for: PixelSize(width: 1000, height: 500)).pipeline.transform(Self.quadrants(PixelSize(width: 1000, height: 500)))
        let pixel = try output.pixel(x: example.1, y: example.2)
        #expect(close(Array(pixel.prefix(3)), example.3), "\(example.0) at (\(example.1), \(example.2)): \(pixel)")
    }

    @Test("S5 extend without a background pads with transparency")
    func transparentPadding() throws {
        let output = try Self.options("rs:fit:200:200:0:1").plan(for: PixelSize(width: 100, height: 50))
            .pipeline.transform(Self.quadrants(PixelSize(width: 100, height: 50)))
        #expect(output.pixelSize == PixelSize(width: 200, height: 200))
        #expect(output.hasAlpha)
        #expect(try output.pixel(x: 5, y: 5).last == 0)
        #expect(try output.pixel(x: 100, y: 90).last == 255)
    }

    @Test("S5 background flattens transparency onto the colour")
    func background() throws {
        let image = try TestImages.halfTransparent(width: 40, height: 20)
        let output = try Self.options("bg:ff0000").plan(for: image.pixelSize).pipeline.transform(image)
        #expect(!output.hasAlpha)
        #expect(close(try output.pixel(x: 5, y: 10), [255, 0, 0]))
        #expect(close(try output.pixel(x: 35, y: 10), [0, 255, 0]))
    }

    @Test("S5 blur, sharpen and smart gravity keep the planned size; blur changes pixels")
    func filters() throws {
        let source = try Self.quadrants(PixelSize(width: 200, height: 100))
        for text in ["bl:3", "sh:1.5", "rs:fill:80:80/g:sm/bl:1", "rs:fill:80:80/g:sm/sh:1"] {
            let plan = try Self.options(text).plan(for: source.pixelSize)
            #expect(try plan.pipeline.transform(source).pixelSize == plan.outputSize, "\(text)")
        }
        let blurred = try Self.options("bl:10").plan(for: source.pixelSize).pipeline.transform(source)
        // The quadrant edge at x = 100 is smeared: its neighbour is no longer pure red.
        #expect(!close(try blurred.pixel(x: 97, y: 25), TestImages.topLeft, tolerance: 5))
    }

    @Test("S5 quality and format reach the encoder: the bytes are of the asked format, lower quality is smaller")
    func encode() throws {
        let source = try TestImages.gradient(width: 200, height: 150)
        var sizes: [Int] = []
        for text in ["f:webp/q:90", "f:webp/q:20"] {
            let plan = try Self.options(text).plan(for: source.pixelSize)
            let format = try #require(plan.format)
            let data = try VipsCoder.shared.encode(plan.pipeline.transform(source), options: plan.encodeOptions(format: format))
            #expect(ImageFormat(data: data) == .webp)
            sizes.append(data.count)
        }
        #expect(sizes[1] < sizes[0])
        for format in [ImageFormat.jpeg, .png] {
            let plan = try Self.options("f:\(format.fileExtension)").plan(for: source.pixelSize)
            let data = try VipsCoder.shared.encode(source, options: plan.encodeOptions(format: try #require(plan.format)))
            #expect(ImageFormat(data: data) == format)
        }
    }
}
