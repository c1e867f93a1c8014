import CVips
import Foundation
import Testing
@testable import WebImage
import WebImageTestSupport

/// A still JPEG or PNG thumbnail is made by libvips' own `vips_thumbnail_buffer`, which
/// chooses the shrink-on-load itself: the decode must report the size libvips really
/// loaded, and its pixels must be those of an explicit load at that shrink followed by
/// the thumbnail.
@Suite("VipsDecode thumbnails made by libvips from the bytes")
struct VipsDecodeThumbnailTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let format: ImageFormat
        let upright: PixelSize
        let orientation: Int
        let target: PixelSize
        /// The shrink libjpeg applies on the way (1 for PNG).
        let shrink: Int
        var testDescription: String { "\(format.rawValue) \(upright) o\(orientation) → \(target)" }
    }

    // 801 × 603 leaves each shrink factor's edge case just on the side the rule puts it:
    // 16.02, 8.01, 4.005 and 2.0 times the target.
    static let cases: [Case] = [
        Case(format: .jpeg, upright: PixelSize(width: 801, height: 603), orientation: 1, target: PixelSize(width: 50, height: 37), shrink: 8),
        Case(format: .jpeg, upright: PixelSize(width: 801, height: 603), orientation: 1, target: PixelSize(width: 100, height: 75), shrink: 4),
        Case(format: .jpeg, upright: PixelSize(width: 801, height: 603), orientation: 1, target: PixelSize(width: 200, height: 150), shrink: 2),
        Case(format: .jpeg, upright: PixelSize(width: 801, height: 603), orientation: 1, target: PixelSize(width: 400, height: 301), shrink: 1),
        Case(format: .jpeg, upright: PixelSize(width: 801, height: 603), orientation: 6, target: PixelSize(width: 100, height: 75), shrink: 4),
        Case(format: .jpeg, upright: PixelSize(width: 603, height: 801), orientation: 8, target: PixelSize(width: 37, height: 50), shrink: 8),
        Case(format: .jpeg, upright: PixelSize(width: 801, height: 603), orientation: 3, target: PixelSize(width: 199, height: 77), shrink: 2),
        Case(format: .png, upright: PixelSize(width: 801, height: 603), orientation: 1, target: PixelSize(width: 100, height: 75), shrink: 1),
    ]

    // imgproxy's rule (processing/scale_on_load.go, calcJpegShink): the largest shrink that
    // does not go below the target, on the same edge cases: 8.01, 4.005, 2.0 and 1.99 times.
    static let toTargetCases: [Case] = [
        Case(format: .jpeg, upright: PixelSize(width: 801, height: 603), orientation: 1, target: PixelSize(width: 100, height: 75), shrink: 8),
        Case(format: .jpeg, upright: PixelSize(width: 801, height: 603), orientation: 1, target: PixelSize(width: 200, height: 150), shrink: 4),
        Case(format: .jpeg, upright: PixelSize(width: 801, height: 603), orientation: 1, target: PixelSize(width: 400, height: 301), shrink: 2),
        Case(format: .jpeg, upright: PixelSize(width: 801, height: 603), orientation: 1, target: PixelSize(width: 402, height: 303), shrink: 1),
        Case(format: .jpeg, upright: PixelSize(width: 801, height: 603), orientation: 6, target: PixelSize(width: 200, height: 150), shrink: 4),
        Case(format: .jpeg, upright: PixelSize(width: 603, height: 801), orientation: 8, target: PixelSize(width: 75, height: 100), shrink: 8),
    ]

    @Test("to-target shrinks a JPEG as far as the target and no further, then resamples to it", arguments: toTargetCases)
    func toTargetShrink(_ testCase: Case) throws {
        let upright = try TestImages.gradient(width: testCase.upright.width, height: testCase.upright.height, seed: 7)
        let data = try TestImages.jpeg(upright: upright, orientation: testCase.orientation)
        var options = ImageDecodeOptions(thumbnailPixelSize: testCase.target, preserveAspectRatio: false)
        options.jpegShrink = .toTarget
        let thumbnail = try VipsCoder.shared.decode(data, options: options)
        #expect(thumbnail.pixelSize == testCase.target)
        let stored = testCase.orientation >= 5
            ? PixelSize(width: testCase.upright.height, height: testCase.upright.width) : testCase.upright
        let shrink = testCase.shrink
        #expect(thumbnail.loadedPixelSize == PixelSize(width: stored.width / shrink, height: stored.height / shrink))
        // The same picture as libvips' rule makes, within the resample's differences.
        let quadrants = try TestImages.jpeg(upright: try TestImages.quadrants(width: testCase.upright.width, height: testCase.upright.height), orientation: testCase.orientation)
        let leaving = ImageDecodeOptions(thumbnailPixelSize: testCase.target, preserveAspectRatio: false)
        let near = try VipsCoder.shared.decode(quadrants, options: options)
        let far = try VipsCoder.shared.decode(quadrants, options: leaving)
        #expect(ColorDifference.meanDeltaE76([UInt8](try near.pixels()), [UInt8](try far.pixels())) < 2)
    }

    @Test("the shrink rule is part of a request's keys: two rules never share a decode or a variant")
    func shrinkRuleInKeys() {
        var request = ImageRequest(url: URL(string: "https://example.com/a.jpg")!, output: .encoded(VariantEncoding()))
        request.processing.transformer = ResizeTransformer(size: PixelSize(width: 100, height: 100))
        let leaving = (request.variantKeyPart, DecodePlan(request))
        request.processing.jpegShrink = .toTarget
        #expect(request.variantKeyPart != leaving.0 && request.variantKeyPart?.contains("jpeg-shrink:to-target") == true)
        #expect(DecodePlan(request) != leaving.1)
    }

    @Test("the loaded size and the pixels are those of the shrink libvips chose", arguments: cases)
    func thumbnailIsLibvipsOwn(_ testCase: Case) throws {
        let upright = try TestImages.gradient(width: testCase.upright.width, height: testCase.upright.height, seed: 7)
        let data = testCase.format == .jpeg
            ? try TestImages.jpeg(upright: upright, orientation: testCase.orientation)
            : try TestImages.encode(upright, as: testCase.format)
        let options = ImageDecodeOptions(thumbnailPixelSize: testCase.target, preserveAspectRatio: false)
        let thumbnail = try VipsCoder.shared.decode(data, options: options)
        #expect(thumbnail.pixelSize == testCase.target)
        #expect(thumbnail.sourcePixelSize == testCase.upright)

        let stored = testCase.orientation >= 5
            ? PixelSize(width: testCase.upright.height, height: testCase.upright.width) : testCase.upright
        let shrink = testCase.shrink
        #expect(thumbnail.loadedPixelSize == PixelSize(width: stored.width / shrink, height: stored.height / shrink))
        let pixels = try thumbnail.pixels()
        #expect(try Self.explicitThumbnail(data, shrink: shrink, target: testCase.target) == pixels)
        if testCase.format == .jpeg {
            // Another shrink gives other pixels: the comparison tells which shrink made them.
            let other = shrink == 1 ? 2 : shrink / 2
            #expect(try Self.explicitThumbnail(data, shrink: other, target: testCase.target) != pixels)
        }
    }

    /// The bytes loaded at `shrink` and thumbnailed to exactly `target`, upright, as pixels.
    private static func explicitThumbnail(_ data: Data, shrink: Int, target: PixelSize) throws -> Data {
        try data.withUnsafeBytes { bytes throws -> Data in
            let options = shrink > 1 ? "[shrink=\(shrink),access=sequential]" : "[access=sequential]"
            let loaded = try #require(wi_load_buffer(bytes.baseAddress, bytes.count, options, ImageDecodeOptions.Strictness.error.vipsFailOn))
            defer { wi_object_unref(loaded) }
            let thumbnail = try Vips.run("thumbnail") {
                wi_thumbnail_image(loaded, $0, Int32(target.width), Int32(target.height), Int32(VIPS_SIZE_FORCE.rawValue), 0, 0)
            }
            var size = 0
            let memory = try #require(vips_image_write_to_memory(thumbnail.pointer, &size))
            defer { wi_g_free(memory) }
            return Data(bytes: memory, count: size)
        }
    }
}
