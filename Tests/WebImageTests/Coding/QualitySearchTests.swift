import Foundation
import Testing
@testable import WebImage
import WebImageTestSupport

/// SSIM (`ImageSimilarity`) and the quality search built on it (`QualitySearch`).
@Suite("Auto quality")
struct QualitySearchTests {
    /// The repository's sample photo (Samples/sample.jpg, 640 × 427), decoded at half its
    /// size: 320 × 213 has the photo's detail, and each of the searches' encodes and
    /// comparisons costs a quarter.
    static let photo: Image = try! VipsCoder.shared.decode(
        TestImages.samplePhoto, options: ImageDecodeOptions(thumbnailPixelSize: PixelSize(width: 320, height: 320))
    )
    /// A flat graphic: four solid quadrants, one row shorter than the photo.
    static let graphic: Image = try! TestImages.quadrants(width: 320, height: 212)

    /// The encoder settings of `format` the searches run with: AVIF at effort 1, as
    /// imgproxy's profile writes it, instead of the slower default.
    static func options(_ format: ImageFormat) -> ImageEncodeOptions {
        var options = ImageEncodeOptions(format: format)
        if format == .avif { options.avifEffort = 1 }
        return options
    }

    static func score(_ image: Image, _ format: ImageFormat, quality: Int) throws -> Double {
        var options = Self.options(format)
        options.quality = quality
        let data = try VipsCoder.shared.encode(image, options: options)
        return try ImageSimilarity.ssim(image, try VipsCoder.shared.decode(data, options: ImageDecodeOptions()))
    }

    @Test("SSIM: 1 for the same pixels, lower for lower qualities, an error for different sizes")
    func ssim() throws {
        #expect(try ImageSimilarity.ssim(Self.photo, Self.photo) == 1)
        let low = try Self.score(Self.photo, .jpeg, quality: 20)
        let high = try Self.score(Self.photo, .jpeg, quality: 95)
        #expect(low < high && high < 1 && low > 0.5, "q20 \(low), q95 \(high)")
        #expect(throws: ImageError.self) { try ImageSimilarity.ssim(Self.photo, Self.graphic) }
    }

    /// The fixed set: each target and format on the photo and the graphic.
    static let cases: [(String, ImageFormat, Double)] = [
        ("photo", .jpeg, 0.97), ("photo", .jpeg, 0.985), ("photo", .jpeg, 0.995),
        ("photo", .webp, 0.98), ("photo", .webp, 0.99), ("photo", .avif, 0.985),
        ("graphic", .jpeg, 0.985), ("graphic", .webp, 0.985),
    ]

    @Test("the chosen quality meets the target, within budget, and is near the lowest that does", arguments: cases)
    func hitsTarget(_ example: (String, ImageFormat, Double)) throws {
        let (name, format, target) = example
        let image = name == "photo" ? Self.photo : Self.graphic
        let auto = AutoQuality(target: target)
        let coder = CountingCoder()
        let choice = try QualitySearch.encode(image, options: Self.options(format), auto: auto, coder: coder)
        let quality = try #require(choice.quality)
        let score = try #require(choice.score)
        #expect(choice.encodes <= auto.maxEncodes && coder.encodeCount == choice.encodes)
        #expect(abs(try Self.score(image, format, quality: quality) - score) < 1e-9, "the reported score is the result's")
        if score < target {
            // Only when even the top of the range misses it.
            #expect(quality == auto.qualities.upperBound, "\(name) \(format) \(target): q\(quality) scored \(score)")
        } else if quality - 8 >= auto.qualities.lowerBound {
            // Bisection with 6 encodes narrows 30…95 to a few qualities: 8 lower misses the target.
            #expect(try Self.score(image, format, quality: quality - 8) < target, "\(name) \(format) \(target): q\(quality)")
        }
    }

    @Test("a flat graphic gets a lower quality and fewer bytes per pixel than a photo at one target")
    func flatIsCheaper() throws {
        let options = ImageEncodeOptions(format: .jpeg)
        let photo = try QualitySearch.encode(Self.photo, options: options, auto: AutoQuality(), coder: VipsCoder.shared)
        let graphic = try QualitySearch.encode(Self.graphic, options: options, auto: AutoQuality(), coder: VipsCoder.shared)
        #expect(try #require(graphic.quality) < (try #require(photo.quality)))
        #expect(graphic.data.count < photo.data.count)
    }

    @Test("formats without a quality, lossless and animated images are one encode at the given settings")
    func notApplied() throws {
        let coder = CountingCoder()
        let png = try QualitySearch.encode(Self.graphic, options: ImageEncodeOptions(format: .png), auto: AutoQuality(), coder: coder)
        #expect(png.encodes == 1 && png.quality == nil && png.score == nil)
        let lossless = try QualitySearch.encode(
            Self.graphic, options: ImageEncodeOptions(format: .webp, lossless: true), auto: AutoQuality(), coder: coder
        )
        #expect(lossless.encodes == 1 && lossless.quality == nil)
        let frames = try Image.animated(frames: [Self.graphic, try TestImages.gradient(width: 320, height: 212)], durations: [0.1, 0.1])
        let animated = try QualitySearch.encode(frames, options: ImageEncodeOptions(format: .webp, quality: 70), auto: AutoQuality(), coder: coder)
        #expect(animated.encodes == 1 && animated.quality == 70 && animated.score == nil)
        #expect(coder.encodeCount == 3)
    }

    @Test("a file-size limit below the chosen result lowers the quality until it fits")
    func maxFileSize() throws {
        let unlimited = try QualitySearch.encode(Self.photo, options: ImageEncodeOptions(format: .jpeg), auto: AutoQuality(target: 0.995), coder: VipsCoder.shared)
        let limit = unlimited.data.count / 2
        let capped = try QualitySearch.encode(
            Self.photo, options: ImageEncodeOptions(format: .jpeg, maxFileSize: limit), auto: AutoQuality(target: 0.995), coder: VipsCoder.shared
        )
        #expect(capped.data.count <= limit)
        #expect(try #require(capped.score) < (try #require(unlimited.score)))
    }

    @Test("settings are clamped and keyed stably")
    func settings() {
        let auto = AutoQuality(target: 2, qualities: -5...300, maxEncodes: 1)
        #expect(auto.target == 0.9999 && auto.qualities == 1...100 && auto.maxEncodes == 2)
        #expect(AutoQuality().key == "auto(0.985,30-95,6)")
    }
}
