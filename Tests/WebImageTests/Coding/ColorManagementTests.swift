import CVips
import Foundation
import Testing
@testable import WebImage
import WebImageTestSupport

/// Colour profiles applied, as browsers apply them, on the library's paths: every test
/// picture in every colour space and container comes out of a resize within a mean ΔE76
/// of 3 of the sRGB original (a difference of about 2.3 is visible).
@Suite("Colour management")
struct ColorManagementTests {
    static let size = PixelSize(width: 48, height: 32)

    /// A variant of `picture`, resized to ``size`` and written as its own format (PNG
    /// for a TIFF, which browsers do not show), through the manager.
    static func variant(of picture: Data, key: String, encoding: VariantEncoding = VariantEncoding()) async throws -> EncodedVariant {
        let manager = ImageManager(cache: TestCaches.make(), loader: ImageLoaders([]))
        var encoding = encoding
        encoding.options.quality = 95
        var request = ImageRequest(source: .custom(key: key) { () throws(ImageError) -> Data in picture })
        request.processing.transformer = ResizeTransformer(size: size, mode: .fill)
        request.output = .encoded(encoding)
        return try await manager.loadVariant(request).variant
    }

    @Test("CM1, CM2: every space and container, resized through the manager, is within ΔE76 3 of the original", arguments: ColorTestPictures.cases)
    func variantsShowTheOriginal(_ testCase: ColorTestPictures.Case) async throws {
        try #require(ColorTestPictures.colordInstalled, "colord-data's ICC profiles are missing: run scripts/bootstrap")
        let picture = try ColorTestPictures.picture(testCase)
        let variant = try await Self.variant(of: picture, key: "\(testCase)")
        let difference = try ColorTestPictures.meanDeltaE(output: variant.data, for: testCase, quality: 95)
        #expect(difference <= 3, "\(testCase): mean ΔE76 \(difference)")
    }

    /// The original's pixels, as stored.
    static func originalPixels() throws -> [UInt8] { [UInt8](try ColorTestPictures.original().pixels()) }

    /// The largest difference of one sample between two buffers of one size.
    static func largestDifference(_ left: [UInt8], _ right: [UInt8]) -> Int {
        zip(left, right).map { abs(Int($0) - Int($1)) }.max() ?? 0
    }

    @Test("CM3: a 16-bit source is converted from its 16 bits, then brought to 8: its smooth tones do not band as from 8 bits first")
    func sixteenBitsConvertedFirst() throws {
        let picture = try ColorTestPictures.picture(.init(space: .proPhoto, container: .png16))
        let decoded = try VipsCoder.shared.decode(picture, options: ImageDecodeOptions())
        #expect(decoded.colorProfile == nil && decoded.channels == 3)
        // The grey ramp's rows, where quantising to 8 bits in ProPhoto's wide, gamma-1.8 space
        // before converting moves tones between sRGB's levels.
        let ramp = { (pixels: [UInt8]) in Array(pixels[32 * ColorTestPictures.width * 3..<48 * ColorTestPictures.width * 3]) }
        let original = ramp(try Self.originalPixels())
        let early = ColorDifference.meanDeltaE76(ramp([UInt8](try decoded.pixels())), original)
        // The same pixels brought to 8 bits in ProPhoto first, then converted.
        var keeping = ImageDecodeOptions()
        keeping.keepsColorProfile = true
        let eightBit = try VipsCoder.shared.decode(picture, options: keeping)
        let late = try VipsCoder.shared.decode(try VipsCoder.shared.encode(eightBit, options: ImageEncodeOptions(format: .png)))
        let fromEightBits = ColorDifference.meanDeltaE76(ramp([UInt8](try late.pixels())), original)
        #expect(early <= 0.05 && early * 4 < fromEightBits, "from 16 bits \(early), from 8 bits \(fromEightBits)")
        #expect(try ColorTestPictures.meanDeltaE(output: picture, for: .init(space: .proPhoto, container: .png16), quality: 95) <= 3)
    }

    @Test("CM4: a profile that is sRGB's costs no conversion: the pixels are the file's, and the profile stays")
    func srgbProfileIsNotConverted() throws {
        try #require(ColorTestPictures.colordInstalled, "colord-data's ICC profiles are missing: run scripts/bootstrap")
        let srgb = try Data(contentsOf: URL(fileURLWithPath: ColorTestPictures.colordDirectory + "/sRGB.icc"))
        let profile = try #require(ICCProfile(data: srgb))
        #expect(profile.isSRGB && ICCProfile.sRGB.isSRGB && !ICCProfile.displayP3.isSRGB)
        let tagged = try ColorTestPictures.tagged(try ColorTestPictures.original(), with: srgb, as: .jpeg)
        var keeping = ImageDecodeOptions()
        keeping.keepsColorProfile = true
        let decoded = try VipsCoder.shared.decode(tagged, options: ImageDecodeOptions())
        let kept = try VipsCoder.shared.decode(tagged, options: keeping)
        #expect(decoded.colorProfile == profile)
        #expect(try decoded.pixels() == kept.pixels())
    }

    @Test("CM4: with the profile kept, a variant carries the source's profile and the source's pixels, resized")
    func keptProfileVariant() async throws {
        let testCase = ColorTestPictures.Case(space: .displayP3, container: .png16)
        let picture = try ColorTestPictures.picture(testCase)
        let variant = try await Self.variant(of: picture, key: "kept", encoding: VariantEncoding(options: ImageEncodeOptions(format: .jpeg, colorProfile: .source)))
        var keeping = ImageDecodeOptions()
        keeping.keepsColorProfile = true
        let output = try VipsCoder.shared.decode(variant.data, options: keeping)
        #expect(output.colorProfile == ICCProfile.displayP3)
        // The source's own numbers, resized as the manager resizes.
        let source = try VipsCoder.shared.decode(picture, options: keeping)
        let resized = try ResizeTransformer(size: Self.size, mode: .fill).transform(source)
        #expect(Self.largestDifference([UInt8](try output.pixels()), [UInt8](try resized.pixels())) <= 1)
        // And shown as a browser shows it, the original.
        #expect(try ColorTestPictures.meanDeltaE(output: variant.data, for: testCase, quality: 95) <= 3)
    }

    @Test("the header reports the colour space and the profile's description")
    func headerReportsColour() throws {
        try #require(ColorTestPictures.colordInstalled, "colord-data's ICC profiles are missing: run scripts/bootstrap")
        let info = try VipsCoder.shared.inspect(try ColorTestPictures.picture(.init(space: .adobeRGB, container: .png16)))
        #expect(info.colorSpace == .rgb16 && info.colorProfile?.description == "Compatible with Adobe RGB (1998)")
        let cmyk = try VipsCoder.shared.inspect(try ColorTestPictures.picture(.init(space: .cmykWithoutProfile, container: .jpeg)))
        #expect(cmyk.colorSpace == .cmyk && cmyk.colorProfile == nil)
    }

    @Test("K7: the eight EXIF orientations come out upright through the manager, resized and not")
    func orientationsThroughTheManager() async throws {
        let upright = try TestImages.quadrants(width: 60, height: 40)
        for orientation in 1...8 {
            let jpeg = try TestImages.jpeg(upright: upright, orientation: orientation)
            for resize in [ResizeTransformer(size: PixelSize(width: 30, height: 20)), nil] {
                let manager = ImageManager(cache: TestCaches.make(), loader: ImageLoaders([]))
                var request = ImageRequest(source: .custom(key: "o\(orientation)") { () throws(ImageError) -> Data in jpeg })
                request.processing.transformer = resize
                request.output = .encoded(VariantEncoding(format: .fixed(.png)))
                let image = try VipsCoder.shared.decode(try await manager.loadVariant(request).variant.data)
                let (w, h) = (image.pixelSize.width, image.pixelSize.height)
                #expect(image.pixelSize == (resize == nil ? upright.pixelSize : PixelSize(width: 30, height: 20)))
                for (x, y, colour) in [(w / 4, h / 4, TestImages.topLeft), (3 * w / 4, h / 4, TestImages.topRight),
                                       (w / 4, 3 * h / 4, TestImages.bottomLeft), (3 * w / 4, 3 * h / 4, TestImages.bottomRight)] {
                    let pixel = try image.pixel(x: x, y: y)
                    #expect(zip(pixel, colour).allSatisfy { abs($0 - $1) <= 40 }, "orientation \(orientation) at \(x),\(y): \(pixel)")
                }
            }
        }
    }

    @Test("an RGB profile's colour transform is made once and kept; past the few kept, images still convert right")
    func transformsKept() async throws {
        try #require(ColorTestPictures.colordInstalled, "colord-data's ICC profiles are missing: run scripts/bootstrap")
        let picture = try ColorTestPictures.picture(.init(space: .wideGamut, container: .jpeg))
        _ = try VipsCoder.shared.decode(picture)
        let made = VipsColor.transformsMade
        #expect(made >= 1, "the Wide Gamut JPEG did not go through the kept transforms")
        for _ in 0..<10 { _ = try VipsCoder.shared.decode(picture) }
        // Other tests at once may bring other profiles; this one's is made at most once more.
        #expect(VipsColor.transformsMade - made <= 1)
        // Twelve profiles, more than are kept: each converts to the pixels libvips' own
        // transform makes of the same stored pixels, and near the original where the
        // profile's gamut holds sRGB's (ColorMatch and NTSC clip its saturated bars).
        let names = ["AdobeRGB1998", "AppleRGB", "BestRGB", "BetaRGB", "BruceRGB", "CIE-RGB", "ColorMatchRGB", "DonRGB4",
                     "ECI-RGBv1", "NTSC-RGB", "PAL-RGB", "WideGamutRGB"]
        let original = try ColorTestPictures.original()
        for name in names {
            let path = ColorTestPictures.colordDirectory + "/\(name).icc"
            let profile = try Data(contentsOf: URL(fileURLWithPath: path))
            let source = original.handle
            let stored = try Vips.run("storing") { wi_icc_transform_depth(source.pointer, $0, path, "srgb", 8) }
            let byLibvips = try Vips.run("converting") { wi_icc_transform_depth(stored.pointer, $0, "srgb", path, 8) }
            let image = Image(handle: stored, format: .png, frameCount: 1, frameDurations: [], loopCount: 0, sourceOrientation: 1,
                              loadedPixelSize: original.pixelSize, sourcePixelSize: original.pixelSize)
            let reference = Image(handle: byLibvips, format: .png, frameCount: 1, frameDurations: [], loopCount: 0,
                                  sourceOrientation: 1, loadedPixelSize: original.pixelSize, sourcePixelSize: original.pixelSize)
            let png = try ColorTestPictures.tagged(image, with: profile, as: .png)
            let decoded = try VipsCoder.shared.decode(png)
            let fromLibvips = ColorDifference.meanDeltaE76([UInt8](try decoded.pixels()), [UInt8](try reference.pixels()))
            let fromOriginal = ColorDifference.meanDeltaE76([UInt8](try decoded.pixels()), [UInt8](try original.pixels()))
            #expect(decoded.colorProfile == nil, "\(name): the profile is kept")
            #expect(fromLibvips <= 0.5, "\(name): mean ΔE76 \(fromLibvips) from libvips' conversion")
            #expect(fromOriginal <= 3.5, "\(name): mean ΔE76 \(fromOriginal) from the original")
        }
    }
}
