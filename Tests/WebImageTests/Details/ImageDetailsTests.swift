import CVips
import Foundation
import Testing
@testable import WebImage
import WebImageTestSupport

/// `ImageDetails`: the facts of every format the library decodes, EXIF, colour, ThumbHash,
/// and the manager's cached `loadDetails` / `loadThumbHash`.
@Suite("Image details")
struct ImageDetailsTests {
    static let image = try! TestImages.quadrants(width: 120, height: 80)

    /// One encoded image of each format the coders decode, with what its details must say.
    static func samples() throws -> [(ImageFormat, Data, frames: Int, alpha: Bool)] {
        var samples: [(ImageFormat, Data, frames: Int, alpha: Bool)] = []
        for format in [ImageFormat.jpeg, .png, .webp, .avif, .heic, .tiff, .gif] {
            // A GIF decodes with an alpha band whether or not a colour is transparent.
            samples.append((format, try TestImages.encode(image, as: format), 1, format == .gif))
        }
        let alpha = try TestImages.quadrants(width: 120, height: 80, alpha: true)
        samples.append((.png, try TestImages.encode(alpha, as: .png), 1, true))
        let animated = try Image.animated(frames: [image, try TestImages.gradient(width: 120, height: 80)], durations: [0.2, 0.5])
        samples.append((.gif, try VipsCoder.shared.encode(animated, options: ImageEncodeOptions(format: .gif)), 2, true))
        samples.append((.webp, try VipsCoder.shared.encode(animated, options: ImageEncodeOptions(format: .webp)), 2, false))
        samples.append((.qoi, try QOICoder().encode(image, options: ImageEncodeOptions(format: .qoi)), 1, false))
        return samples
    }

    @Test("every decoded format: the JSON has the schema's keys and types and the right facts")
    func schemaForEveryFormat() throws {
        let coder = ImageCodersManager(coders: [QOICoder(), VipsCoder.shared])
        for (format, data, frames, alpha) in try Self.samples() {
            let details = try ImageDetails(data: data, coder: coder)
            let json = try #require(try JSONSerialization.jsonObject(with: try ImageDetails.json(details)) as? [String: Any])
            let label = "\(format) frames \(frames) alpha \(alpha)"
            #expect(json["format"] as? String == format.rawValue, "\(label)")
            #expect(json["width"] as? Int == 120 && json["height"] as? Int == 80, "\(label)")
            #expect(json["frames"] as? Int == frames && json["alpha"] as? Bool == alpha, "\(label)")
            #expect(json["orientation"] as? Int == 1 && json["bytes"] as? Int == data.count, "\(label)")
            let color = try #require(json["dominantColor"] as? String)
            #expect(color.wholeMatch(of: /#[0-9a-f]{6}/) != nil, "\(label): \(color)")
            let hash = try ThumbHash(base64: try #require(json["thumbHash"] as? String))
            #expect(abs(hash.approximateAspectRatio - 1.5) < 0.3, "\(label)")
            if frames > 1 {
                #expect((json["durations"] as? [Double])?.count == frames && json["loopCount"] as? Int != nil, "\(label)")
            } else {
                #expect(json["durations"] == nil && json["loopCount"] == nil, "\(label)")
            }
            let allowed: Set = ["format", "width", "height", "frames", "durations", "loopCount", "alpha", "orientation", "bytes", "exif", "dominantColor", "thumbHash", "colorSpace", "colorProfile"]
            #expect(Set(json.keys).isSubset(of: allowed), "\(label): \(json.keys.sorted())")
            #expect(try ImageDetails(json: try ImageDetails.json(details)) == details)
        }
    }

    @Test("EXIF essentials are read; the position only when asked for")
    func exif() throws {
        var fields = [
            ("exif-ifd0-Make", "WebImage Camera"), ("exif-ifd0-Model", "Model 7"), ("exif-ifd2-DateTimeOriginal", "2024:05:01 12:34:56"),
            ("exif-ifd2-FNumber", "28/10"), ("exif-ifd2-FocalLength", "50/1"),
            ("exif-ifd3-GPSLatitudeRef", "S"), ("exif-ifd3-GPSLatitude", "33/1 52/1 4/1"),
            ("exif-ifd3-GPSLongitudeRef", "E"), ("exif-ifd3-GPSLongitude", "151/1 12/1 36/1"),
        ]
        fields.append(("orientation", "6"))
        let data = try Self.jpegWithFields(fields)
        let without = try ImageDetails(data: data)
        let exif = try #require(without.exif)
        #expect(exif.make == "WebImage Camera" && exif.model == "Model 7" && exif.dateTime == "2024:05:01 12:34:56")
        #expect(exif.fNumber == 2.8 && exif.focalLength == 50)
        #expect(exif.gps == nil)
        #expect(without.orientation == 6 && without.width == 80 && without.height == 120, "upright size")
        let gps = try #require(try ImageDetails(data: data, includeGPS: true).exif?.gps)
        #expect(abs(gps.latitude - -(33 + 52.0 / 60 + 4.0 / 3600)) < 1e-6)
        #expect(abs(gps.longitude - (151 + 12.0 / 60 + 36.0 / 3600)) < 1e-6)
        #expect(try ImageDetails(data: TestImages.encode(Self.image, as: .png)).exif == nil)
    }

    /// A JPEG written by libvips with these header fields (EXIF is made from `exif-*` fields).
    static func jpegWithFields(_ fields: [(String, String)]) throws -> Data {
        // An image of its own, not the one TestImages shares: header fields are set on it.
        let image = try Image(pixels: [UInt8](try Self.image.pixels()), width: 120, height: 80, channels: 3)
        for (name, value) in fields where name.hasPrefix("exif-") { wi_set_string(image.handle.pointer, name, value) }
        if let orientation = fields.first(where: { $0.0 == "orientation" }).flatMap({ Int32($0.1) }) {
            _ = wi_set_int(image.handle.pointer, "orientation", orientation)
        }
        return try VipsCoder.shared.encode(image, options: ImageEncodeOptions(format: .jpeg, stripMetadata: false))
    }

    @Test("the dominant colour is the most common one, transparent pixels left out")
    func dominantColor() {
        let red: [UInt8] = [250, 10, 10, 255], blue: [UInt8] = [0, 0, 255, 255], clear: [UInt8] = [0, 255, 0, 0]
        let pixels = Array([[UInt8]](repeating: red, count: 3).joined()) + blue + Array([[UInt8]](repeating: clear, count: 9).joined())
        #expect(ImageDetails.dominantColor(rgba: pixels) == ImageColor(red: 250, green: 10, blue: 10))
        #expect(ImageDetails.dominantColor(rgba: clear) == ImageColor(red: 255, green: 255, blue: 255))
    }

    @Test("bad data is a clear error")
    func badData() {
        #expect(throws: ImageError.self) { try ImageDetails(data: Data("not an image".utf8)) }
        #expect(throws: ImageError.self) { try ImageDetails(data: TestImages.pngBomb(width: 20_000, height: 20_000)) }
        #expect(throws: ImageError.self) { try ImageDetails(json: Data("{}".utf8)) }
    }

    @Test("through the manager: details and ThumbHash are made once and then come from the cache")
    func throughTheManager() async throws {
        try await ImageManagerVariantTests.withVariantManager { origin, manager, coder in
            origin.register("/a.png", .image(try TestImages.encode(Self.image, as: .png)))
            let url = origin.url("/a.png")
            let first = try await manager.loadDetails(for: url)
            let again = try await manager.loadDetails(for: url)
            #expect(first == again && first.width == 120 && first.format == .png)
            let hash = try await manager.loadThumbHash(for: url, transformer: CropTransformer(rect: PixelRect(x: 0, y: 0, width: 60, height: 80)))
            #expect(try await manager.loadThumbHash(for: url, transformer: CropTransformer(rect: PixelRect(x: 0, y: 0, width: 60, height: 80))) == hash)
            #expect(origin.requestCount("/a.png") == 1)
            #expect(abs(hash.approximateAspectRatio - 0.75) < 0.2, "the hash is of the cropped image")
            #expect(coder.decodeCount == 2, "one decode for the details, one for the hash")
            // The placeholder an ImageTarget shows while the image loads.
            let placeholder = try hash.image()
            #expect(placeholder.pixelSize.width <= 32 && placeholder.pixelSize.height == 32)
        }
    }
}
