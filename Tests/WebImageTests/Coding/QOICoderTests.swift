import Foundation
import Testing
@testable import WebImage
import WebImageTestSupport

/// The committed QOI fixtures (Fixtures/README.md), found next to this file's folder.
enum QOIFixtures {
    static let directory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // Coding
        .deletingLastPathComponent()  // WebImageTests
        .appendingPathComponent("Fixtures")

    static func data(_ name: String) throws -> Data {
        try Data(contentsOf: directory.appendingPathComponent(name))
    }
}

/// The pixels of the generated QOI fixtures: the formulas of Fixtures/make_qoi_fixtures.py.
enum QOIFixturePixels {
    /// 37×23 RGBA: a long run, varying alpha, small steps, larger steps, noise, a palette
    /// in pairs, and a transparent last row.
    static func rgba37x23() -> [UInt8] {
        let palette: [[Int]] = [[255, 0, 0, 255], [0, 255, 0, 255], [0, 0, 255, 128], [250, 250, 250, 255]]
        return pixels(width: 37, height: 23) { x, y in
            if y < 4 { return [200, 40, 90, 255] }
            if y < 8 { return [(x * 7) % 256, y * 9, 255 - x * 5, (x * 11) % 256] }
            if y < 11 { return [100 + x, 50 + x / 2, 20 + x % 2, 255] }
            if y < 14 { return [x * 4 + y, y * 6 + x / 2, 128 + x - y, 255] }
            if y < 18 { return [(x * 73 + y * 151) % 256, (x * x * 3 + y * 7) % 256, (x * y * 29) % 256, 255] }
            if y < 22 { return palette[(x / 2 + y) % 4] }
            return [0, 0, 0, 0]
        }
    }

    /// 16×16 RGB: a run across a row boundary, a recurring colour, a gradient, noise.
    static func rgb16x16() -> [UInt8] {
        pixels(width: 16, height: 16) { x, y in
            if y < 2 { return [30, 60, 90] }
            if (x + y) % 5 == 0 { return [10, 200, 30] }
            if y < 9 { return [x * (1 + y % 3) + y, y * 2 + x, 60 + x / 2] }
            return [(x * 16 + y * 7) % 256, (y * 16 + x * x) % 256, (x * y * 7) % 256]
        }
    }

    private static func pixels(width: Int, height: Int, _ formula: (Int, Int) -> [Int]) -> [UInt8] {
        var result: [UInt8] = []
        for y in 0..<height {
            for x in 0..<width {
                result += formula(x, y).map { UInt8($0) }
            }
        }
        return result
    }
}

@Suite("QOICoder")
struct QOICoderTests {
    let coder = QOICoder()

    // MARK: Cross-checks with the reference implementation

    @Test("decoding files of the reference encoder (and of a second encoder) gives exactly their pixels")
    func decodesReferenceFiles() throws {
        let cases: [(file: String, width: Int, height: Int, channels: Int, pixels: [UInt8])] = [
            ("qoi-rgba-37x23.qoi", 37, 23, 4, QOIFixturePixels.rgba37x23()),
            ("qoi-rgba-37x23-pip.qoi", 37, 23, 4, QOIFixturePixels.rgba37x23()),
            ("qoi-rgb-16x16.qoi", 16, 16, 3, QOIFixturePixels.rgb16x16()),
        ]
        for item in cases {
            let image = try coder.decode(try QOIFixtures.data(item.file), options: .init())
            #expect(image.format == .qoi, "\(item.file)")
            #expect(image.pixelSize == PixelSize(width: item.width, height: item.height), "\(item.file)")
            #expect(image.channels == item.channels, "\(item.file)")
            #expect(image.hasAlpha == (item.channels == 4), "\(item.file)")
            #expect([UInt8](try image.pixels()) == item.pixels, "\(item.file)")
        }
    }

    @Test("encoding the fixtures' pixels gives the reference encoder's bytes exactly")
    func encodesLikeTheReference() throws {
        let cases: [(file: String, width: Int, height: Int, channels: Int, pixels: [UInt8])] = [
            ("qoi-rgba-37x23.qoi", 37, 23, 4, QOIFixturePixels.rgba37x23()),
            ("qoi-rgb-16x16.qoi", 16, 16, 3, QOIFixturePixels.rgb16x16()),
        ]
        for item in cases {
            let image = try Image(pixels: item.pixels, width: item.width, height: item.height, channels: item.channels)
            let encoded = try coder.encode(image, options: ImageEncodeOptions(format: .qoi))
            #expect(encoded == (try QOIFixtures.data(item.file)), "\(item.file)")
        }
    }

    // The QOI author's published test card, as committed in alytarik/png2qoi
    // (qoi_test_images/testcard_rgba.{qoi,png}); see Fixtures/README.md.
    @Test("the published test card decodes to the pixels of its PNG, and encodes back to the same bytes")
    func publishedTestCard() throws {
        let qoi = try QOIFixtures.data("testcard_rgba.qoi")
        let fromQOI = try coder.decode(qoi, options: .init())
        let fromPNG = try VipsCoder.shared.decode(try QOIFixtures.data("testcard_rgba.png"), options: .init())
        #expect(fromQOI.pixelSize == PixelSize(width: 256, height: 256))
        #expect(fromQOI.channels == 4 && fromPNG.channels == 4)
        #expect(try fromQOI.pixels() == fromPNG.pixels())
        #expect(try coder.encode(fromQOI, options: ImageEncodeOptions(format: .qoi)) == qoi)
    }

    // MARK: Round trips

    @Test("RGB, RGBA and noise round-trip losslessly")
    func roundTrips() throws {
        var generator = SplitMix64(seed: 7)
        let noise = (0..<(41 * 29 * 4)).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let images = [
            try TestImages.gradient(width: 300, height: 200),
            try TestImages.quadrants(width: 64, height: 48, alpha: true),
            try TestImages.halfTransparent(width: 33, height: 17),
            try Image(pixels: noise, width: 41, height: 29, channels: 4),
            try Image(pixels: Array(noise.prefix(41 * 29 * 3)), width: 41, height: 29, channels: 3),
            try Image(pixels: [1, 2, 3], width: 1, height: 1, channels: 3),
        ]
        for image in images {
            let data = try coder.encode(image, options: ImageEncodeOptions(format: .qoi))
            #expect(ImageFormat(data: data) == .qoi)
            #expect(data[12] == UInt8(image.channels), "header channels")
            #expect(data[13] == 0, "colour space sRGB")
            #expect(data.suffix(8) == Data([0, 0, 0, 0, 0, 0, 0, 1]), "end marker")
            let decoded = try coder.decode(data, options: .init())
            #expect(decoded.pixelSize == image.pixelSize)
            #expect(try decoded.pixels() == image.pixels(), "\(image.pixelSize) × \(image.channels)")
        }
    }

    @Test("grey is written as RGB and grey + alpha as RGBA")
    func greyRoundTrips() throws {
        let width = 19, height = 7
        let grey = (0..<(width * height)).map { UInt8(($0 * 37) % 256) }
        let greyImage = try Image(pixels: grey, width: width, height: height, channels: 1)
        let rgb = try coder.decode(coder.encode(greyImage, options: ImageEncodeOptions(format: .qoi)), options: .init())
        #expect(rgb.channels == 3)
        #expect([UInt8](try rgb.pixels()) == grey.flatMap { [$0, $0, $0] })

        let alpha = (0..<(width * height)).map { UInt8(255 - ($0 * 11) % 256) }
        let greyAlpha = zip(grey, alpha).flatMap { [$0, $1] }
        let greyAlphaImage = try Image(pixels: greyAlpha, width: width, height: height, channels: 2)
        let rgba = try coder.decode(coder.encode(greyAlphaImage, options: ImageEncodeOptions(format: .qoi)), options: .init())
        #expect(rgba.channels == 4)
        #expect([UInt8](try rgba.pixels()) == zip(grey, alpha).flatMap { [$0, $0, $0, $1] })
    }

    @Test("an animation is written as its first frame")
    func animationWritesFirstFrame() throws {
        let first = try TestImages.quadrants(width: 20, height: 10)
        let second = try TestImages.gradient(width: 20, height: 10)
        let animation = try Image.animated(frames: [first, second], durations: [0.1, 0.1])
        let decoded = try coder.decode(coder.encode(animation, options: ImageEncodeOptions(format: .qoi)), options: .init())
        #expect(decoded.frameCount == 1)
        #expect(decoded.pixelSize == first.pixelSize)
        #expect(try decoded.pixels() == first.pixels())
    }

    // MARK: Header, options, routing

    @Test("inspect reads the header and checks the limits")
    func inspectReadsHeader() throws {
        let data = try QOIFixtures.data("qoi-rgb-16x16.qoi")
        let info = try coder.inspect(data, limits: .default)
        #expect(info == ImageInfo(format: .qoi, pixelSize: PixelSize(width: 16, height: 16), frameCount: 1, orientation: 1, hasAlpha: false))
        #expect(try coder.inspect(QOIFixtures.data("qoi-rgba-37x23.qoi"), limits: .default).hasAlpha)
        #expect(throws: ImageError.imageTooLarge(pixels: 256, limit: 255)) {
            try coder.inspect(data, limits: ImageLimits(maxPixels: 255))
        }
        #expect(throws: ImageError.imageTooLarge(pixels: 256, limit: 255)) {
            try coder.decode(data, options: ImageDecodeOptions(limits: ImageLimits(maxPixels: 255)))
        }
    }

    // QOI: the options are honoured by resampling the decoded image.
    @Test("thumbnail size and scale-down limit are honoured")
    func honoursScalingOptions() throws {
        let data = try QOIFixtures.data("testcard_rgba.qoi")
        let thumbnail = try coder.decode(data, options: ImageDecodeOptions(thumbnailPixelSize: PixelSize(width: 64, height: 32)))
        #expect(thumbnail.pixelSize == PixelSize(width: 32, height: 32))
        #expect(thumbnail.format == .qoi)
        #expect(thumbnail.channels == 4)
        #expect(thumbnail.loadedPixelSize == PixelSize(width: 256, height: 256))
        #expect(thumbnail.sourcePixelSize == PixelSize(width: 256, height: 256))

        let forced = try coder.decode(
            data, options: ImageDecodeOptions(thumbnailPixelSize: PixelSize(width: 50, height: 20), preserveAspectRatio: false)
        )
        #expect(forced.pixelSize == PixelSize(width: 50, height: 20))

        let limited = try coder.decode(data, options: ImageDecodeOptions(scaleDownLimitBytes: 64 * 64 * 4))
        #expect(limited.pixelSize.width <= 64 && limited.pixelSize.height <= 64 && limited.pixelSize.width >= 60)

        // A thumbnail never enlarges.
        let small = try coder.decode(data, options: ImageDecodeOptions(thumbnailPixelSize: PixelSize(width: 500, height: 500)))
        #expect(small.pixelSize == PixelSize(width: 256, height: 256))
    }

    @Test("decodePartial gives nothing: QOI has no progressive form")
    func noPartialDecode() throws {
        let data = try QOIFixtures.data("qoi-rgba-37x23.qoi")
        #expect(try coder.decodePartial(data.prefix(data.count / 2), options: .init()) == nil)
        #expect(try coder.decodePartial(data, options: .init()) == nil)
    }

    @Test("canDecode by magic bytes, canEncode only qoi")
    func claims() throws {
        #expect(coder.canDecode(try QOIFixtures.data("qoi-rgb-16x16.qoi")))
        #expect(!coder.canDecode(Data("qoif".utf8)))
        #expect(!coder.canDecode(try TestImages.encode(try TestImages.gradient(width: 8, height: 8), as: .png)))
        #expect(coder.canEncode(.qoi))
        #expect(!coder.canEncode(.png))
        #expect(throws: ImageError.self) {
            try coder.encode(try TestImages.gradient(width: 8, height: 8), options: ImageEncodeOptions(format: .png))
        }
    }

    @Test("ImageFormat knows QOI by its bytes, name and media type; VipsCoder does not write it")
    func imageFormat() throws {
        let data = try QOIFixtures.data("qoi-rgb-16x16.qoi")
        #expect(ImageFormat(data: data) == .qoi)
        #expect(ImageFormat(data: data.prefix(14)) == .qoi)
        #expect(ImageFormat(data: data.prefix(13)) == .unknown)
        #expect(ImageFormat(name: "qoi") == .qoi)
        #expect(ImageFormat(name: "image/qoi") == .qoi)
        #expect(ImageFormat.qoi.mimeType == "image/qoi")
        #expect(ImageFormat.qoi.fileExtension == "qoi")
        #expect(!ImageFormat.qoi.isWritable)
        #expect(!ImageFormat.qoi.supportsAnimation)
    }

    @Test("VipsCoder refuses QOI and says which coder reads it")
    func vipsCoderRefusesQOI() throws {
        let data = try QOIFixtures.data("qoi-rgb-16x16.qoi")
        let vips = VipsCoder.shared
        #expect(!vips.canDecode(data))
        #expect(!vips.canEncode(.qoi))
        #expect(try vips.decodePartial(data, options: .init()) == nil)
        for attempt in [{ _ = try vips.decode(data, options: .init()) }, { _ = try vips.inspect(data, limits: .default) }] {
            do {
                try attempt()
                Issue.record("VipsCoder decoded QOI")
            } catch let error as ImageError {
                guard case .badImageData(let reason) = error else {
                    Issue.record("expected badImageData, got \(error)")
                    continue
                }
                #expect(reason.contains("no loader for qoi") && reason.contains("QOICoder"), "\(reason)")
            }
        }
        let image = try TestImages.gradient(width: 4, height: 4)
        do {
            _ = try vips.encode(image, options: ImageEncodeOptions(format: .qoi))
            Issue.record("VipsCoder wrote QOI")
        } catch {
            guard case .encodingFailed(let reason) = error else {
                Issue.record("expected encodingFailed, got \(error)")
                return
            }
            #expect(reason.contains("QOICoder"), "\(reason)")
        }
    }

    // MARK: Bad input

    @Test("K5 empty, short, garbled headers and bad fields fail with precise badImageData")
    func K5_badHeaders() throws {
        let valid = try QOIFixtures.data("qoi-rgb-16x16.qoi")
        func header(width: UInt32, height: UInt32, channels: UInt8 = 3, colorspace: UInt8 = 0) -> Data {
            var data = Data("qoif".utf8)
            withUnsafeBytes(of: width.bigEndian) { data.append(contentsOf: $0) }
            withUnsafeBytes(of: height.bigEndian) { data.append(contentsOf: $0) }
            data.append(contentsOf: [channels, colorspace])
            return data + valid.dropFirst(14)
        }
        let cases: [(data: Data, mentions: String)] = [
            (Data(), "empty"),
            (Data("qoif".utf8), "shorter than the 14-byte QOI header"),
            (Data("qoix".utf8) + valid.dropFirst(4), "magic"),
            (Data("<html><body>not found</body></html>".utf8), "magic"),
            (header(width: 0, height: 16), "0×16"),
            (header(width: 16, height: 0), "16×0"),
            (header(width: 16, height: 16, channels: 5), "5 channels"),
            (header(width: 16, height: 16, channels: 0), "0 channels"),
            (header(width: 16, height: 16, colorspace: 2), "colour space 2"),
        ]
        for item in cases {
            for attempt in [{ _ = try coder.decode(item.data, options: .init()) }, { _ = try coder.inspect(item.data, limits: .default) }] {
                expectBadImageData(attempt, mentioning: item.mentions)
            }
        }
    }

    @Test("K5 every truncation, and a missing or damaged end marker, fail with badImageData")
    func K5_truncatedAndEndMarker() throws {
        let valid = try QOIFixtures.data("qoi-rgba-37x23.qoi")
        for length in 14..<valid.count {
            expectBadImageData({ _ = try coder.decode(valid.prefix(length), options: .init()) }, mentioning: "QOI data")
        }
        expectBadImageData({ _ = try coder.decode(valid.prefix(14), options: .init()) }, mentioning: "truncated")
        expectBadImageData({ _ = try coder.decode(valid.dropLast(8), options: .init()) }, mentioning: "end marker")
        expectBadImageData({ _ = try coder.decode(valid.dropLast(3), options: .init()) }, mentioning: "end marker")
        var damaged = valid
        damaged[damaged.count - 1] = 2
        expectBadImageData({ _ = try coder.decode(damaged, options: .init()) }, mentioning: "not the end marker")
        // Bytes after the end marker are ignored.
        let padded = valid + Data([9, 9, 9])
        #expect([UInt8](try coder.decode(padded, options: .init()).pixels()) == QOIFixturePixels.rgba37x23())
    }

    @Test("K5 garbled op streams never crash: each decodes or fails with badImageData")
    func K5_garbledNeverCrashes() throws {
        let valid = try QOIFixtures.data("qoi-rgba-37x23.qoi")
        var generator = SplitMix64(seed: 2024)
        for round in 0..<400 {
            var garbled = valid
            for _ in 0..<(1 + round % 8) {
                garbled[Int.random(in: 14..<garbled.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
            }
            if round % 3 == 0 { garbled = garbled.prefix(Int.random(in: 14...garbled.count, using: &generator)) }
            do {
                let image = try coder.decode(garbled, options: .init())
                #expect(image.pixelSize == PixelSize(width: 37, height: 23))
            } catch {
                guard case .badImageData = error else {
                    Issue.record("round \(round): expected badImageData, got \(error)")
                    continue
                }
            }
        }
        // Pure noise after a valid header.
        let noise = (0..<3000).map { _ in UInt8.random(in: 0...255, using: &generator) }
        do {
            _ = try coder.decode(valid.prefix(14) + Data(noise), options: .init())
        } catch {
            guard case .badImageData = error else { Issue.record("expected badImageData, got \(error)"); return }
        }
    }

    @Test("K5 a 30000×30000 header is refused before any pixel is allocated")
    func K5_bombRefusedFromHeader() throws {
        var bomb = Data("qoif".utf8)
        bomb.append(contentsOf: [0, 0, 0x75, 0x30, 0, 0, 0x75, 0x30, 4, 0])  // 30000 × 30000, RGBA
        bomb.append(contentsOf: [0xFD, 0xFD, 0xFD] + QOIHeader.endMarker)  // three runs of 62
        #expect(throws: ImageError.imageTooLarge(pixels: 900_000_000, limit: 50_000_000)) {
            try coder.decode(bomb, options: .init())
        }
        #expect(throws: ImageError.imageTooLarge(pixels: 900_000_000, limit: 50_000_000)) {
            try coder.inspect(bomb, limits: .default)
        }
        // With the limit raised, the data is still far too short for 900 million pixels:
        // refused from its length, instead of allocating 3.6 GB and then finding the end.
        let raised = ImageDecodeOptions(limits: ImageLimits(maxPixels: 1_000_000_000))
        expectBadImageData({ _ = try coder.decode(bomb, options: raised) }, mentioning: "truncated")
        // The largest header QOI can state: no overflow, just too large.
        var largest = Data("qoif".utf8) + Data(repeating: 0xFF, count: 8) + Data([4, 0]) + Data(QOIHeader.endMarker)
        #expect(throws: ImageError.self) { try coder.decode(largest, options: .init()) }
        largest[12] = 3
        #expect(throws: ImageError.self) {
            try coder.decode(largest, options: ImageDecodeOptions(limits: ImageLimits(maxPixels: .max)))
        }
    }

    private func expectBadImageData(
        _ attempt: () throws -> Void, mentioning expected: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        do {
            try attempt()
            Issue.record("decoded; expected badImageData mentioning \"\(expected)\"", sourceLocation: sourceLocation)
        } catch let error as ImageError {
            guard case .badImageData(let reason) = error else {
                Issue.record("expected badImageData, got \(error)", sourceLocation: sourceLocation)
                return
            }
            #expect(reason.contains(expected), "\(reason)", sourceLocation: sourceLocation)
        } catch {
            Issue.record("expected ImageError, got \(error)", sourceLocation: sourceLocation)
        }
    }
}

/// A small seeded generator, so that the random inputs are the same on every run.
private struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
