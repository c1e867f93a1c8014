import Foundation
import Testing
@testable import WebImage
@testable import WebImageServer
import WebImageTestSupport

// The processing options carried out end to end: a live proxy downloads the source
// from the origin, decodes it (with shrink-on-load where it can), runs the plan and encodes;
// the test decodes the reply and checks its size, format and pixels.
@Suite("Proxy processing")
struct ProxyProcessingTests {
    /// Red, green, blue and white quadrants, 1000 × 500, as PNG (lossless) and JPEG (shrink-on-load).
    static let quadrants = try! TestImages.quadrants(width: 1000, height: 500)
    static let png = try! TestImages.encode(quadrants, as: .png)
    static let jpeg = try! TestImages.encode(quadrants, as: .jpeg, quality: 95)

    static func decode(_ reply: TestProxy.Reply) throws -> Image {
        try VipsCoder.shared.decode(reply.body, options: ImageDecodeOptions())
    }

    static func pixel(_ image: Image, _ x: Int, _ y: Int) throws -> [Int] {
        Array(try image.pixel(x: x, y: y).prefix(3))
    }

    @Test("S5 every planned size is the size served, from PNG and from JPEG (shrink-on-load) sources")
    func sizesEndToEnd() async throws {
        try await TestProxy.with { (origin, proxy) async throws in
            origin.register("/q.png", .image(Self.png))
            origin.register("/q.jpg", .image(Self.jpeg))
            for (options, source, expected) in ProcessingPlanTests.sizes where source == Self.quadrants.pixelSize {
                for path in ["/q.png", "/q.jpg"] {
                    let reply = try await proxy.get(proxyPath(options, source: origin.url(path), extension: "png"))
                    #expect(reply.status == 200, "\(options) \(path): \(reply.text.prefix(200))")
                    guard reply.status == 200 else { continue }
                    #expect(try ProxyImages.size(of: reply.body) == expected, "\(options) from \(path)")
                }
            }
        }
    }

    @Test("S5 fill crops around the gravity; crop, rotate and extend put the pixels where they belong")
    func pixelsEndToEnd() async throws {
        try await TestProxy.with { (origin, proxy) async throws in
            origin.register("/q.png", .image(Self.png))
            let url = origin.url("/q.png")
            func image(_ options: String) async throws -> Image {
                let reply = try await proxy.get(proxyPath(options, source: url, extension: "png"))
                #expect(reply.status == 200, "\(options): \(reply.text.prefix(200))")
                return try Self.decode(reply)
            }
            let (red, green, blue, white) = (TestImages.topLeft, TestImages.topRight, TestImages.bottomLeft, TestImages.bottomRight)

            // fill 100×100 of the 1000×500 source: scaled to 200×100, then cropped.
            let centre = try await image("rs:fill:100:100")
            #expect(centre.pixelSize == PixelSize(width: 100, height: 100))
            #expect(try close(Self.pixel(centre, 10, 10), red))
            #expect(try close(Self.pixel(centre, 90, 90), white))
            let west = try await image("rs:fill:100:100/g:we")
            #expect(try close(Self.pixel(west, 90, 10), red), "west keeps the left 100 columns")
            let east = try await image("rs:fill:100:100/g:ea")
            #expect(try close(Self.pixel(east, 10, 10), green), "east keeps the right 100 columns")

            // crop 400×200 in the centre (x 300–700, y 150–350), no resize.
            let cropped = try await image("c:400:200")
            #expect(cropped.pixelSize == PixelSize(width: 400, height: 200))
            #expect(try close(Self.pixel(cropped, 50, 50), red))
            #expect(try close(Self.pixel(cropped, 350, 150), white))

            // rotate 90° clockwise: the bottom-left (blue) quadrant comes to the top left.
            let turned = try await image("rot:90")
            #expect(turned.pixelSize == PixelSize(width: 500, height: 1000))
            #expect(try close(Self.pixel(turned, 50, 50), blue))
            #expect(try close(Self.pixel(turned, 450, 950), green))

            // extend 1000×500 to 1200×700, centred, onto the background colour.
            let extended = try await image("rs:fit:1200:700:0:1/bg:255:255:0")
            #expect(extended.pixelSize == PixelSize(width: 1200, height: 700))
            #expect(try close(Self.pixel(extended, 5, 5), [255, 255, 0]), "the new border is the background")
            #expect(try close(Self.pixel(extended, 150, 150), red), "the source sits in the middle")

            // padding 10 px (× dpr 1) on every side.
            let padded = try await image("pd:10/bg:0:0:255")
            #expect(padded.pixelSize == PixelSize(width: 1020, height: 520))
            #expect(try close(Self.pixel(padded, 2, 2), [0, 0, 255]))
            #expect(try close(Self.pixel(padded, 12, 12), red))

            // blur and sharpen keep the size and change the pixels along the quadrant edges.
            let sharp = try await image("")
            let blurred = try await image("bl:8")
            #expect(blurred.pixelSize == sharp.pixelSize)
            let (blurredEdge, sharpEdge) = (try Self.pixel(blurred, 499, 100), try Self.pixel(sharp, 499, 100))
            #expect(blurredEdge != sharpEdge, "blur mixes the red and green edge")
            let sharpened = try await image("sh:2")
            #expect(sharpened.pixelSize == sharp.pixelSize)
        }
    }

    @Test("S5 format, quality, background for alpha, and strip metadata")
    func encodingEndToEnd() async throws {
        try await TestProxy.with { (origin, proxy) async throws in
            origin.register("/q.png", .image(Self.png))
            let alpha = try TestImages.encode(try TestImages.halfTransparent(width: 200, height: 100), as: .png)
            origin.register("/alpha.png", .image(alpha))
            let url = origin.url("/q.png")

            for (name, format, mime) in [("jpg", ImageFormat.jpeg, "image/jpeg"), ("png", .png, "image/png"), ("webp", .webp, "image/webp"), ("avif", .avif, "image/avif"), ("gif", .gif, "image/gif")] {
                let byExtension = try await proxy.get(proxyPath("rs:fit:200:200", source: url, extension: name))
                #expect(byExtension.status == 200)
                #expect(byExtension.header("content-type") == mime)
                #expect(ImageFormat(data: byExtension.body) == format)
                let byOption = try await proxy.get(proxyPath("rs:fit:200:200/f:\(name)", source: url))
                #expect(ImageFormat(data: byOption.body) == format, "f:\(name)")
            }

            let low = try await proxy.get(proxyPath("q:10", source: origin.url("/q.png"), extension: "jpg"))
            let high = try await proxy.get(proxyPath("q:95", source: origin.url("/q.png"), extension: "jpg"))
            #expect(low.status == 200 && high.status == 200)
            #expect(low.body.count < high.body.count, "quality 10 is smaller than quality 95")

            // Transparent pixels flattened onto the background when the output has no alpha.
            let flattened = try await proxy.get(proxyPath("bg:255:0:0", source: origin.url("/alpha.png"), extension: "jpg"))
            #expect(flattened.status == 200)
            let image = try Self.decode(flattened)
            #expect(try close(Self.pixel(image, 20, 50), [255, 0, 0]), "the transparent half is red")
            #expect(try close(Self.pixel(image, 180, 50), [0, 255, 0]), "the opaque half stays green")

            // A source with an EXIF block (orientation 3): stripped, the output carries none.
            let withExif = try TestImages.jpeg(upright: try TestImages.quadrants(width: 200, height: 100), orientation: 3)
            #expect(withExif.range(of: Data("Exif".utf8)) != nil)
            origin.register("/exif.jpg", .image(withExif))
            let stripped = try await proxy.get(proxyPath("sm:1", source: origin.url("/exif.jpg"), extension: "jpg"))
            #expect(stripped.status == 200)
            #expect(stripped.body.range(of: Data("Exif".utf8)) == nil, "no EXIF block in a stripped JPEG")
            let upright = try Self.decode(stripped)
            #expect(try close(Self.pixel(upright, 20, 20), TestImages.topLeft), "the orientation was applied before stripping")
        }
    }
}
