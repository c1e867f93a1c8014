import Foundation
import Testing
@testable import WebImage
import WebImageTestSupport

/// ThumbHash's own behaviour: bad input, hashing decoded images, the base64 and JSON forms.
@Suite struct ThumbHashTests {
    /// A reference hash with `+` and `/` in its base64 ("onePixel").
    static let onePixel = try! #require(ThumbHashReferenceVectors.encoded.first { $0.name == "onePixel" })
    /// A reference hash with alpha ("disc").
    static let disc = try! #require(ThumbHashReferenceVectors.encoded.first { $0.name == "disc" })
    /// A reference hash whose base64 ends in `=` padding ("alphaRamp").
    static let alphaRamp = try! #require(ThumbHashReferenceVectors.encoded.first { $0.name == "alphaRamp" })

    private func message(_ body: () throws(ImageError) -> ThumbHash) -> String? {
        do {
            _ = try body()
            return nil
        } catch {
            guard case .badImageData(let reason) = error else { return "unexpected error \(error)" }
            return reason
        }
    }

    // MARK: bad input

    @Test(arguments: ["", "   ", "not base64!", "ab$d", "====", "A", "AAAAA", "AA=A", "AAAAAAA==", "AAAAAA==="])
    func refusesTextThatIsNotBase64(text: String) {
        let reason = message { () throws(ImageError) in try ThumbHash(base64: text) }
        #expect(reason?.contains("is not a base64 ThumbHash") == true, "\(reason ?? "no error")")
    }

    @Test func theExampleInTheMessageIsAHash() throws {
        let reason = message { () throws(ImageError) in try ThumbHash(base64: "?") }
        let example = try #require(reason?.components(separatedBy: "e.g. ").last)
        #expect(try ThumbHash(base64: example).bytes.count == 21)
    }

    @Test func refusesHashesShorterThanTheHeader() {
        // "AAAA" is 3 bytes.
        let reason = message { () throws(ImageError) in try ThumbHash(base64: "AAAA") }
        #expect(reason == "a ThumbHash has at least 5 bytes, this one has 3; pass the whole hash")
        #expect(message { () throws(ImageError) in try ThumbHash(bytes: []) } != nil)
    }

    @Test func refusesHashesCutShortOrWithBytesAfterTheEnd() {
        let whole = bytes(hex: Self.disc.hash)
        let short = message { () throws(ImageError) in try ThumbHash(bytes: Array(whole.dropLast())) }
        #expect(short == "the ThumbHash header describes \(whole.count) bytes, the hash has \(whole.count - 1); pass the hash exactly as it was encoded")
        let long = message { () throws(ImageError) in try ThumbHash(bytes: whole + [0]) }
        #expect(long?.contains("the hash has \(whole.count + 1)") == true)
    }

    @Test func refusesAnAlphaHeaderWithoutItsAlphaByte() {
        // Byte 2's top bit says alpha; the alpha constants would be byte 5.
        let reason = message { () throws(ImageError) in try ThumbHash(bytes: [0, 0, 0x80, 5, 0]) }
        #expect(reason == "a ThumbHash with alpha has at least 6 bytes, this one has 5; pass the whole hash")
    }

    @Test func refusesAHeaderWithNoLuminanceTermsOnTheShortSide() {
        var hash = bytes(hex: Self.alphaRamp.hash)
        hash[3] &= ~7
        let reason = message { () throws(ImageError) in try ThumbHash(bytes: hash) }
        #expect(reason?.contains("0 luminance coefficients") == true)
    }

    @Test func refusesPixelsItCannotHash() {
        let wide = message { () throws(ImageError) in try ThumbHash(rgba: [UInt8](repeating: 0, count: 101 * 4), width: 101, height: 1) }
        #expect(wide?.contains("at most 100×100 pixels, not 101×1") == true)
        let empty = message { () throws(ImageError) in try ThumbHash(rgba: [], width: 0, height: 0) }
        #expect(empty != nil)
        let mismatch = message { () throws(ImageError) in try ThumbHash(rgba: [UInt8](repeating: 0, count: 15), width: 2, height: 2) }
        #expect(mismatch == "RGBA buffer of 15 bytes does not match 2×2×4")
    }

    // MARK: text forms

    @Test func readsURLSafeAndUnpaddedBase64() throws {
        let expected = try ThumbHash(base64: Self.onePixel.base64)
        #expect(Self.onePixel.base64.contains("+") && Self.onePixel.base64.contains("/"))
        let urlSafe = Self.onePixel.base64.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        #expect(try ThumbHash(base64: urlSafe) == expected)

        #expect(Self.alphaRamp.base64.hasSuffix("="))
        let unpadded = String(Self.alphaRamp.base64.prefix { $0 != "=" })
        let hash = try ThumbHash(base64: unpadded)
        #expect(hash.bytes == bytes(hex: Self.alphaRamp.hash))
        #expect(hash.base64 == Self.alphaRamp.base64)
        #expect(hash.description == Self.alphaRamp.base64)
    }

    @Test func codesAsABase64StringInJSON() throws {
        let hash = try ThumbHash(base64: Self.disc.base64)
        let json = try JSONEncoder().encode(["thumbhash": hash])
        #expect(try JSONDecoder().decode([String: String].self, from: json) == ["thumbhash": Self.disc.base64])
        #expect(try JSONDecoder().decode([String: ThumbHash].self, from: json)["thumbhash"] == hash)
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode([String: ThumbHash].self, from: Data(#"{"thumbhash":"AAAA"}"#.utf8))
        }
    }

    @Test func averageColourInEightBits() throws {
        let colour = ThumbHashColor(red: 1, green: 0.5, blue: 0, alpha: 0.2)
        #expect(colour.imageColor == ImageColor(red: 255, green: 128, blue: 0, alpha: 51))
    }

    // MARK: hashing images

    /// `pixels` (`channels` a pixel) as RGBA: grey repeated into red, green and blue, 255 alpha when absent.
    private func rgba(_ pixels: [UInt8], channels: Int) -> [UInt8] {
        stride(from: 0, to: pixels.count, by: channels).flatMap { i -> [UInt8] in
            let pixel = Array(pixels[i..<i + channels])
            switch channels {
            case 1: return [pixel[0], pixel[0], pixel[0], 255]
            case 2: return [pixel[0], pixel[0], pixel[0], pixel[1]]
            case 3: return pixel + [255]
            default: return pixel
            }
        }
    }

    @Test(arguments: [1, 2, 3, 4])
    func hashesASmallImageAsItsRGBAPixels(channels: Int) throws {
        let (width, height) = (40, 30)
        let pixels = (0..<width * height * channels).map { UInt8(truncatingIfNeeded: $0 * 7 + $0 / 97) }
        let image = try Image(pixels: pixels, width: width, height: height, channels: channels)
        let hash = try ThumbHash(image: image)
        #expect(hash == (try ThumbHash(rgba: rgba(pixels, channels: channels), width: width, height: height)))
        #expect(hash.hasAlpha == (channels == 2 || channels == 4))
    }

    @Test func hashesTheFirstFrameOfAnAnimation() throws {
        let animation = try TransformFixtures.animation(width: 40, height: 30)
        #expect(animation.isAnimated)
        let firstFrame = try TestImages.quadrants(width: 40, height: 30)
        #expect(try ThumbHash(image: animation) == ThumbHash(image: firstFrame))
        #expect(try ThumbHash(image: animation) != ThumbHash(image: try animation.frame(at: 1)))
    }

    @Test func shrinksALargeImageKeepingItsAspectRatio() throws {
        let image = try TransformFixtures.solid(TransformFixtures.red, width: 400, height: 100)
        let hash = try ThumbHash(image: image)
        // 100×25: 7 luminance terms across, round(7 × 25 / 100) = 2 down.
        #expect(hash.approximateAspectRatio == 3.5)
        let decoded = hash.pixels()
        #expect(decoded.width == 32 && decoded.height == 9)
        // Pure red comes back as 254, 0, 1: the hash stores colour in 6-bit steps.
        let red: [UInt8] = [254, 0, 1, 255]
        #expect(hash.averageColor.imageColor == ImageColor(red: 254, green: 0, blue: 1))
        let off = stride(from: 0, to: decoded.rgba.count, by: 4).filter { Array(decoded.rgba[$0..<$0 + 4]) != red }
        #expect(off.isEmpty, "\(off.count) pixels are not \(red), first \(off.first.map { Array(decoded.rgba[$0..<$0 + 4]) } ?? [])")
    }

    /// The test card (Fixtures/testcard_rgba.png, 256×256 with transparent parts): the hash's
    /// average colour is the card's alpha-weighted mean colour and mean alpha, within the
    /// hash's quantisation (6 bits for luminance, 4 for alpha).
    @Test func averageColourOfARealImageIsItsMean() throws {
        let data = try Data(contentsOf: ThumbHashFixtures.directory.appendingPathComponent("testcard_rgba.png"))
        let image = try VipsCoder.shared.decode(data)
        #expect(image.channels == 4)
        let pixels = [UInt8](try image.pixels())
        var sum = [0.0, 0.0, 0.0], alphaSum = 0.0
        for i in stride(from: 0, to: pixels.count, by: 4) {
            let alpha = Double(pixels[i + 3]) / 255
            for c in 0..<3 { sum[c] += alpha * Double(pixels[i + c]) / 255 }
            alphaSum += alpha
        }
        let mean = sum.map { $0 / alphaSum } + [alphaSum / Double(pixels.count / 4)]

        let hash = try ThumbHash(image: image)
        let average = hash.averageColor
        let measured = [average.red, average.green, average.blue, average.alpha]
        for (got, want) in zip(measured, mean) {
            #expect(abs(got - want) < 0.05, "average \(measured), mean \(mean)")
        }
        #expect(hash.hasAlpha == (mean[3] < 1))
        #expect(hash.approximateAspectRatio == 1)
        // A square image draws back as 32×32.
        let placeholder = try hash.image()
        #expect(placeholder.pixelSize == PixelSize(width: 32, height: 32))
    }
}
