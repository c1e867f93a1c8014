import CVips
import Foundation
import Testing
@testable import WebImage
@testable import WebImageServer
import WebImageTestSupport

/// imgproxy's `geometry.png` rebuilt as a positional image: 200 × 100, opaque, each pixel's
/// red channel is its x (`x × 255 / 199`), green its y (`y × 255 / 99`), blue 255. After any
/// crop, resize, extend or padding, a pixel's colour says which source pixel it came from.
enum PositionalImage {
    static let size = PixelSize(width: 200, height: 100)

    /// The stored pixels of a positional image of `size`.
    static func image(_ size: PixelSize = size) throws -> Image {
        var pixels = [UInt8](repeating: 255, count: size.width * size.height * 3)
        for y in 0..<size.height {
            for x in 0..<size.width {
                let base = (y * size.width + x) * 3
                pixels[base] = UInt8((Double(x) * 255 / Double(size.width - 1)).rounded())
                pixels[base + 1] = UInt8((Double(y) * 255 / Double(size.height - 1)).rounded())
            }
        }
        return try Image(pixels: pixels, width: size.width, height: size.height, channels: 3)
    }

    /// The image as PNG (lossless): imgproxy's `geometry.png`.
    static let png: Data = try! TestImages.encode(image(), as: .png)

    /// The same stored pixels as a JPEG tagged with EXIF `orientation` (1–8), as imgproxy's
    /// `orientation-<n>.png`: without auto-rotation every one looks the same.
    static func jpeg(orientation: Int) throws -> Data {
        let stored = try image()
        let tagged = try Vips.run("copy") { wi_copy(stored.handle.pointer, $0) }
        wi_set_int(tagged.pointer, "orientation", Int32(orientation))
        var buffer: UnsafeMutableRawPointer?
        var length = 0
        guard wi_jpegsave(tagged.pointer, &buffer, &length, 98, 0, 0) == 0, let buffer else {
            throw ImageError.encodingFailed(Vips.takeError())
        }
        defer { wi_g_free(buffer) }
        return Data(bytes: buffer, count: length)
    }

    /// The source coordinate a pixel's colour encodes, in a source of `size`.
    static func coordinate(of pixel: [Int], in size: PixelSize = size) -> (x: Double, y: Double) {
        (Double(pixel[0]) * Double(size.width - 1) / 255, Double(pixel[1]) * Double(size.height - 1) / 255)
    }

    /// Whether a pixel is not from the image: transparent, or the blue-less fill of an opaque output.
    static func isBlank(_ pixel: [Int]) -> Bool {
        pixel.count == 4 ? pixel[3] < 128 : pixel[2] < 128
    }
}

/// A rectangle in pixels, of the output or of the source.
struct Area: Sendable, Hashable, CustomStringConvertible {
    var x: Double, y: Double, width: Double, height: Double

    init(_ x: Double, _ y: Double, _ width: Double, _ height: Double) {
        (self.x, self.y, self.width, self.height) = (x, y, width, height)
    }

    /// The whole of an image of `size`.
    init(_ size: PixelSize) { self.init(0, 0, Double(size.width), Double(size.height)) }

    /// The point at fractions `fx`, `fy` of the way across.
    func point(_ fx: Double, _ fy: Double) -> (x: Double, y: Double) { (x + fx * width, y + fy * height) }

    var description: String { "(\(x), \(y)) \(width)×\(height)" }
}

/// What one ported imgproxy case expects: the status, the output size, and where the
/// image content sits — the `content` area of the output shows the `visible` area of the
/// source, scaled; every output pixel outside `content` is blank (extend, padding).
struct ImgproxyCase: Sendable, CustomStringConvertible {
    /// imgproxy's test function and sub-test, e.g. `TestCrop` / `crop_gravity_no_crop_50x50`.
    var test: String
    var name: String
    /// The processing options, as imgproxy's test builds them.
    var options: String
    var status = 200
    var size: PixelSize?
    /// Where the image sits in the output; `nil`: the whole output.
    var content: Area?
    /// Which source area the content shows; `nil`: checked no further than the size.
    var visible: Area?
    /// The source's clockwise rotation before `visible` is read (the `rotate` option).
    var rotation = 0

    var description: String { "imgproxy \(test)/\(name) (\(options))" }
}

extension ImgproxyCase {
    /// The source area a centred crop (or fit) of the source leaves when it is scaled to
    /// `content`: the largest area of `content`'s aspect ratio, centred, in the source as
    /// rotated by `rotation`.
    static func centred(_ content: PixelSize, rotation: Int = 0) -> Area {
        let source = rotation == 90 || rotation == 270
            ? PixelSize(width: PositionalImage.size.height, height: PositionalImage.size.width)
            : PositionalImage.size
        let scale = max(Double(content.width) / Double(source.width), Double(content.height) / Double(source.height))
        let width = min(Double(source.width), Double(content.width) / scale)
        let height = min(Double(source.height), Double(content.height) / scale)
        return Area((Double(source.width) - width) / 2, (Double(source.height) - height) / 2, width, height)
    }
}

/// Runs ported imgproxy cases against a live proxy serving the positional image.
enum ImgproxyCaseRunner {
    /// The path imgproxy's `processImage` requests: `/unsafe/<options>/plain/<source>`
    /// (with no options, `/unsafe//plain/<source>`, as imgproxy's tests write it).
    static func path(_ options: String, source: URL) -> String {
        "/unsafe/" + options + "/plain/" + source.absoluteString
    }

    /// Fetches and checks every case; the proxy allows security options (`max_result_dimension`).
    static func run(_ cases: [ImgproxyCase]) async throws {
        try await TestProxy.with(configure: { $0.signing.allowSecurityOptions = true }) { (origin, proxy) async throws in
            origin.register("/geometry.png", .image(PositionalImage.png))
            for example in cases {
                let reply = try await proxy.get(path(example.options, source: origin.url("/geometry.png")))
                try check(reply, example)
            }
        }
    }

    /// Checks one reply against its case.
    static func check(_ reply: TestProxy.Reply, _ example: ImgproxyCase) throws {
        #expect(reply.status == example.status, "\(example): \(reply.text.prefix(200))")
        guard reply.status == 200, example.status == 200 else { return }
        let image = try VipsCoder.shared.decode(reply.body, options: ImageDecodeOptions())
        if let size = example.size {
            #expect(image.pixelSize == size, "\(example): size")
            guard image.pixelSize == size else { return }
        }
        let output = Area(image.pixelSize)
        let content = example.content ?? output
        guard let visible = example.visible else { return }
        // Sample the content at its centre and near its corners: each sample's colour names
        // the source pixel it came from. One output pixel spans 1 / scale source pixels.
        let scale = min(content.width / visible.width, content.height / visible.height)
        let tolerance = 0.75 / scale + 2
        for (fx, fy) in [(0.5, 0.5), (0.2, 0.2), (0.8, 0.2), (0.2, 0.8), (0.8, 0.8)] {
            let at = content.point(fx, fy)
            let (px, py) = (Int(at.x.rounded(.down)), Int(at.y.rounded(.down)))
            // The exact fraction of the way across the content of that pixel's centre.
            let (ux, uy) = ((Double(px) + 0.5 - content.x) / content.width, (Double(py) + 0.5 - content.y) / content.height)
            let expected = visible.point(ux, uy)
            let found = PositionalImage.coordinate(of: try image.pixel(x: px, y: py))
            let source = inRotatedFrame(found, rotation: example.rotation)
            #expect(abs(source.x - expected.x + 0.5) <= tolerance && abs(source.y - expected.y + 0.5) <= tolerance,
                    "\(example): output (\(px), \(py)) shows source \(source), expected about \(expected) in \(visible)")
        }
        // Outside the content: blank (extended or padded space).
        for (x, y) in [(content.x - 1, content.y + content.height / 2), (content.x + content.width + 1, content.y + content.height / 2),
                       (content.x + content.width / 2, content.y - 1), (content.x + content.width / 2, content.y + content.height + 1)]
            where x >= 0 && y >= 0 && x < output.width && y < output.height {
            let pixel = try image.pixel(x: Int(x), y: Int(y))
            #expect(PositionalImage.isBlank(pixel), "\(example): output (\(Int(x)), \(Int(y))) should be outside the image: \(pixel)")
        }
    }

    /// A source coordinate in the frame of the source rotated clockwise by `rotation`.
    static func inRotatedFrame(_ point: (x: Double, y: Double), rotation: Int) -> (x: Double, y: Double) {
        let (w, h) = (Double(PositionalImage.size.width), Double(PositionalImage.size.height))
        switch rotation {
        case 90: return (h - 1 - point.y, point.x)
        case 180: return (w - 1 - point.x, h - 1 - point.y)
        case 270: return (point.y, w - 1 - point.x)
        default: return point
        }
    }
}
