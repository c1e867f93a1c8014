import Foundation
import Testing
import WebImage
import WebImageServer

// Resize types, width/height 0, dpr, enlarge, extend, gravity, crop, rotate:
// the planned output sizes.
@Suite("Proxy processing plan")
struct ProcessingPlanTests {
    static func options(_ text: String) throws -> ProcessingOptions {
        try ProxyURLParser(keys: []).parse(path: "/_/\(text)/plain/http://example.com/a.jpg").options
    }

    /// Options, source size, expected output size.
    static let sizes: [(String, PixelSize, PixelSize)] = [
        ("rs:fit:300:300", PixelSize(width: 1000, height: 500), PixelSize(width: 300, height: 150)),
        ("rs:fill:300:300", PixelSize(width: 1000, height: 500), PixelSize(width: 300, height: 300)),
        ("rs:fill-down:300:300", PixelSize(width: 1000, height: 500), PixelSize(width: 300, height: 300)),
        ("rs:force:300:300", PixelSize(width: 1000, height: 500), PixelSize(width: 300, height: 300)),
        ("rs:auto:300:300", PixelSize(width: 1000, height: 500), PixelSize(width: 300, height: 300)),
        ("rs:auto:200:400", PixelSize(width: 1000, height: 500), PixelSize(width: 200, height: 100)),
        ("rs:auto:400:200", PixelSize(width: 500, height: 1000), PixelSize(width: 100, height: 200)),
        ("w:250", PixelSize(width: 1000, height: 500), PixelSize(width: 250, height: 125)),
        ("h:100", PixelSize(width: 1000, height: 500), PixelSize(width: 200, height: 100)),
        ("rt:fill/w:250", PixelSize(width: 1000, height: 500), PixelSize(width: 250, height: 125)),
        ("rt:force/w:250", PixelSize(width: 1000, height: 500), PixelSize(width: 250, height: 500)),
        ("rt:force/h:50", PixelSize(width: 1000, height: 500), PixelSize(width: 1000, height: 50)),
        ("w:150/dpr:2", PixelSize(width: 1000, height: 500), PixelSize(width: 300, height: 150)),
        ("rs:fill:100:100/dpr:1.5", PixelSize(width: 1000, height: 500), PixelSize(width: 150, height: 150)),
        ("rs:fit:2000:2000", PixelSize(width: 1000, height: 500), PixelSize(width: 1000, height: 500)),
        ("rs:fit:2000:2000:1", PixelSize(width: 1000, height: 500), PixelSize(width: 2000, height: 1000)),
        ("rs:fill:2000:2000", PixelSize(width: 1000, height: 500), PixelSize(width: 1000, height: 500)),
        ("rs:fill:2000:2000:1", PixelSize(width: 1000, height: 500), PixelSize(width: 2000, height: 2000)),
        ("rs:fill-down:2000:2000", PixelSize(width: 1000, height: 500), PixelSize(width: 500, height: 500)),
        ("rs:fill-down:400:100", PixelSize(width: 300, height: 300), PixelSize(width: 300, height: 75)),
        // Not enlarged: imgproxy scales both sides back by the same factor (2000 → 1000, 100 → 50).
        ("rs:force:2000:100", PixelSize(width: 1000, height: 500), PixelSize(width: 1000, height: 50)),
        ("rs:force:2000:100:1", PixelSize(width: 1000, height: 500), PixelSize(width: 2000, height: 100)),
        ("rs:fit:2000:2000:0:1", PixelSize(width: 1000, height: 500), PixelSize(width: 2000, height: 2000)),
        ("rs:fit:300:300:0:1", PixelSize(width: 1000, height: 500), PixelSize(width: 300, height: 300)),
        ("w:300/ex:1", PixelSize(width: 1000, height: 500), PixelSize(width: 300, height: 150)),
        ("w:2000/ex:1", PixelSize(width: 1000, height: 500), PixelSize(width: 2000, height: 500)),
        ("c:400:400", PixelSize(width: 1000, height: 500), PixelSize(width: 400, height: 400)),
        ("c:0.5:0.5", PixelSize(width: 1000, height: 500), PixelSize(width: 500, height: 250)),
        ("c:0:100", PixelSize(width: 1000, height: 500), PixelSize(width: 1000, height: 100)),
        ("c:2000:2000", PixelSize(width: 1000, height: 500), PixelSize(width: 1000, height: 500)),
        ("c:400:400/rs:fit:200:200", PixelSize(width: 1000, height: 500), PixelSize(width: 200, height: 200)),
        ("rot:90", PixelSize(width: 1000, height: 500), PixelSize(width: 500, height: 1000)),
        ("rot:90/rs:fit:300:300", PixelSize(width: 1000, height: 500), PixelSize(width: 150, height: 300)),
        ("rot:180/rs:fit:300:300", PixelSize(width: 1000, height: 500), PixelSize(width: 300, height: 150)),
        ("rot:270/rs:fill:300:100", PixelSize(width: 1000, height: 500), PixelSize(width: 300, height: 100)),
        ("rs:fill:300:300/g:sm", PixelSize(width: 1000, height: 500), PixelSize(width: 300, height: 300)),
        ("rs:fill:300:300/g:soea:10:10", PixelSize(width: 1000, height: 500), PixelSize(width: 300, height: 300)),
        ("rs:fit:0:0", PixelSize(width: 1000, height: 500), PixelSize(width: 1000, height: 500)),
        ("rs:fit:333:333", PixelSize(width: 1001, height: 667), PixelSize(width: 333, height: 222)),
        ("rs:fit:300:300/pd:10", PixelSize(width: 1000, height: 500), PixelSize(width: 320, height: 170)),
        ("rs:fit:300:300:0:1/pd:1:2:3:4/dpr:2", PixelSize(width: 1000, height: 500), PixelSize(width: 612, height: 608)),
    ]

    @Test("S5 planned output sizes for fit, fill, fill-down, force, auto, w/h 0, dpr, enlarge, extend, crop, rotate", arguments: sizes)
    func outputSize(_ example: (String, PixelSize, PixelSize)) throws {
        let plan = try Self.options(example.0).plan(for: example.1)
        #expect(plan.outputSize == example.2, "\(example.0) on \(example.1)")
    }

    @Test("S5 encode settings: quality, format, max bytes, metadata, background")
    func encodeSettings() throws {
        let plan = try Self.options("q:55/f:webp/mb:5000/sm:0/bg:102030").plan(for: PixelSize(width: 10, height: 10))
        #expect(plan.quality == 55 && plan.format == .webp && plan.maxBytes == 5000 && !plan.stripMetadata)
        let encode = plan.encodeOptions(format: .jpeg, defaultQuality: 90)
        #expect(encode.format == .jpeg && encode.quality == 55 && encode.maxFileSize == 5000 && !encode.stripMetadata)
        #expect(encode.backgroundColor == ImageEncodeOptions.Color(red: 0x10, green: 0x20, blue: 0x30))

        let defaults = ProcessingOptions().plan(for: PixelSize(width: 10, height: 10))
        #expect(defaults.isIdentity && defaults.stripMetadata && defaults.format == nil)
        #expect(defaults.encodeOptions(format: .png, defaultQuality: 70).quality == 70)
        #expect(!(try Self.options("bl:1").plan(for: PixelSize(width: 10, height: 10)).isIdentity))
        #expect(try Self.options("w:10").plan(for: PixelSize(width: 10, height: 10)).isIdentity)
    }

    @Test("S5 thumbnail sizes for shrink-on-load: fit only, rotated with the image, none for fill or crop")
    func thumbnailSizes() throws {
        #expect(try Self.options("rs:fit:300:200").thumbnailPixelSize == PixelSize(width: 300, height: 200))
        #expect(try Self.options("rs:fit:150:100/dpr:2").thumbnailPixelSize == PixelSize(width: 300, height: 200))
        #expect(try Self.options("rs:fit:300:200/rot:90").thumbnailPixelSize == PixelSize(width: 200, height: 300))
        #expect(try Self.options("w:300").thumbnailPixelSize?.width == 300)
        #expect(try Self.options("rs:fill:300:200").thumbnailPixelSize == nil)
        #expect(try Self.options("rs:fit:300:200/c:10:10").thumbnailPixelSize == nil)
        #expect(ProcessingOptions().thumbnailPixelSize == nil)

        let source = PixelSize(width: 6000, height: 4000)
        #expect(try Self.options("rs:fit:300:300").decodeHint(sourceSize: source) == PixelSize(width: 300, height: 300))
        #expect(try Self.options("rs:fill:300:300").decodeHint(sourceSize: source) == PixelSize(width: 450, height: 450))
        #expect(try Self.options("rs:fill:300:300").decodeHint(sourceSize: PixelSize(width: 500, height: 500)) == nil)
        #expect(try Self.options("c:100:100/w:10").decodeHint(sourceSize: source) == nil)
    }

    @Test("S5 options set in code to absurd values plan without trapping")
    func absurdValues() {
        var options = ProcessingOptions()
        options.width = Int.max
        options.height = -5
        options.dpr = .nan
        options.crop = CropOption(width: 1e300, height: -.infinity, gravity: .anchor(.east, xOffset: .infinity, yOffset: -1e300))
        options.gravity = .focusPoint(x: .nan, y: 1e300)
        options.extend = true
        for type in ResizingType.allCases {
            options.resizingType = type
            let plan = options.plan(for: PixelSize(width: 640, height: 480))
            #expect(plan.outputSize.width >= 1 && plan.outputSize.height >= 1)
            _ = options.thumbnailPixelSize
            _ = options.decodeHint(sourceSize: PixelSize(width: 640, height: 480))
            _ = options.variantKey
        }
        options.dpr = 1e300
        options.width = 10
        #expect(options.plan(for: PixelSize(width: 10, height: 10)).outputSize.width <= 10_000_000)
    }
}
