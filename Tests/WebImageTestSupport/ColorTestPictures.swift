import CVips
import Foundation
@testable import WebImage

/// One test picture — saturated bars, a grey ramp and skin tones — stored in the colour
/// spaces phones, cameras and design tools write, in the containers they write them in,
/// and a reader that sees an output as a browser shows it.
///
/// The profiles are libvips' own (`p3`, `cmyk`) and the ICC files of Debian's
/// `colord-data` (`/usr/share/color/icc/colord`).
package enum ColorTestPictures {
    /// A colour space a test picture is stored in.
    package enum Space: String, CaseIterable, Sendable, CustomStringConvertible {
        case displayP3, adobeRGB, proPhoto, wideGamut, swappedRedGreen, cmyk, cmykWithoutProfile

        /// Where the profile comes from: a libvips built-in name or a file.
        var profileSource: String {
            switch self {
            case .displayP3: "p3"
            case .adobeRGB: ColorTestPictures.colordDirectory + "/AdobeRGB1998.icc"
            case .proPhoto: ColorTestPictures.colordDirectory + "/ProPhotoRGB.icc"
            case .wideGamut: ColorTestPictures.colordDirectory + "/WideGamutRGB.icc"
            case .swappedRedGreen: ColorTestPictures.colordDirectory + "/SwappedRedAndGreen.icc"
            case .cmyk, .cmykWithoutProfile: "cmyk"
            }
        }

        /// Whether the pixels are CMYK: such a picture is only a JPEG or a TIFF.
        package var isCMYK: Bool { self == .cmyk || self == .cmykWithoutProfile }

        package var description: String { rawValue }
    }

    /// A container a test picture is written in.
    package enum Container: String, CaseIterable, Sendable, CustomStringConvertible {
        case jpeg, png16, webp, tiff

        /// The format of the file.
        package var format: ImageFormat {
            switch self {
            case .jpeg: .jpeg
            case .png16: .png
            case .webp: .webp
            case .tiff: .tiff
            }
        }

        package var description: String { rawValue }
    }

    /// One stored picture.
    package struct Case: Sendable, CustomStringConvertible {
        package let space: Space
        package let container: Container
        package var description: String { "\(space) \(container)" }

        package init(space: Space, container: Container) {
            self.space = space
            self.container = container
        }
    }

    /// Every space in every container it can be written in: RGB spaces as JPEG, 16-bit
    /// PNG, WebP and TIFF; CMYK as JPEG and TIFF.
    package static let cases: [Case] = Space.allCases.flatMap { space in
        Container.allCases.filter { !space.isCMYK || $0 == .jpeg || $0 == .tiff }.map { Case(space: space, container: $0) }
    }

    package static let colordDirectory = "/usr/share/color/icc/colord"

    /// Whether Debian's colord-data profiles are installed (scripts/bootstrap installs them).
    package static var colordInstalled: Bool {
        FileManager.default.fileExists(atPath: colordDirectory + "/SwappedRedAndGreen.icc")
    }

    package static let width = 96, height = 64

    /// The sRGB original: eight saturated bars, a grey ramp, six skin tones.
    package static func original() throws -> Image {
        let bars: [[UInt8]] = [
            [255, 0, 0], [0, 255, 0], [0, 0, 255], [0, 255, 255], [255, 0, 255], [255, 255, 0], [255, 255, 255], [40, 40, 40],
        ]
        let skins: [[UInt8]] = [[255, 224, 196], [234, 192, 134], [198, 134, 66], [141, 85, 36], [93, 58, 35], [224, 172, 105]]
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                let colour: [UInt8]
                if y < 32 {
                    colour = bars[x * bars.count / width]
                } else if y < 48 {
                    let level = UInt8(x * 255 / (width - 1))
                    colour = [level, level, level]
                } else {
                    colour = skins[x * skins.count / width]
                }
                let base = (y * width + x) * 3
                pixels[base..<base + 3] = colour[0..<3]
            }
        }
        return try Image(pixels: pixels, width: width, height: height, channels: 3)
    }

    /// The picture of `testCase`: the original converted to its space with libvips and
    /// lcms, carrying the space's profile (but for ``Space/cmykWithoutProfile``), written
    /// as its container: JPEG at quality 95, PNG with 16 bits a sample, WebP at quality 95,
    /// TIFF uncompressed.
    package static func picture(_ testCase: Case) throws -> Data {
        let original = try original()
        let depth: Int32 = testCase.container == .png16 ? 16 : 8
        let source = original.handle
        var stored = try run("converting the original") {
            wi_icc_transform_depth(source.pointer, $0, testCase.space.profileSource, "srgb", depth)
        }
        if testCase.space == .cmykWithoutProfile { stored = try VipsColor.withoutProfile(stored, failure: .badImageData) }
        var buffer: UnsafeMutableRawPointer?
        var length = 0
        let status: Int32
        switch testCase.container {
        case .jpeg: status = wi_jpegsave(stored.pointer, &buffer, &length, 95, 0, 0)
        case .png16: status = wi_pngsave(stored.pointer, &buffer, &length, 6, 0, 0)
        case .webp: status = wi_webpsave(stored.pointer, &buffer, &length, 95, 0, 0, 4, WebPPreset.default.vipsValue)
        case .tiff: status = wi_tiffsave(stored.pointer, &buffer, &length, 0)
        }
        guard status == 0, let buffer else { throw ImageError.encodingFailed("writing \(testCase): \(Vips.takeError())") }
        return Data(bytesNoCopy: buffer, count: length, deallocator: .custom { pointer, _ in wi_g_free(pointer) })
    }

    /// `image` (8-bit sRGB numbers) written as `format` with `profile`'s bytes embedded
    /// as they are, the pixels untouched.
    package static func tagged(_ image: Image, with profile: Data, as format: ImageFormat) throws -> Data {
        let source = image.handle
        let copy = try run("copying") { wi_copy(source.pointer, $0) }
        profile.withUnsafeBytes { wi_set_icc(copy.pointer, $0.baseAddress, $0.count) }
        var buffer: UnsafeMutableRawPointer?
        var length = 0
        let status = format == .png ? wi_pngsave(copy.pointer, &buffer, &length, 6, 0, 0) : wi_jpegsave(copy.pointer, &buffer, &length, 95, 0, 0)
        guard status == 0, let buffer else { throw ImageError.encodingFailed("writing the tagged image: \(Vips.takeError())") }
        return Data(bytesNoCopy: buffer, count: length, deallocator: .custom { pointer, _ in wi_g_free(pointer) })
    }

    /// What a browser shows of `data`: its pixels converted to 8-bit sRGB with the profile
    /// it embeds (libvips' CMYK profile for CMYK without one), as they are when it has none.
    package static func shownPixels(of data: Data) throws -> (pixels: [UInt8], width: Int, height: Int) {
        try data.withUnsafeBytes { bytes in
            guard let pointer = wi_load_buffer(bytes.baseAddress, bytes.count, "", 2) else {
                throw ImageError.badImageData("cannot read the output: \(Vips.takeError())")
            }
            var image = VipsImageHandle(pointer)
            let cmyk = wi_interpretation(image.pointer) == Int32(VIPS_INTERPRETATION_CMYK.rawValue)
            if cmyk || wi_has_icc(image.pointer) != 0 {
                let source = image
                image = try run("converting the output to sRGB") { wi_icc_transform_depth(source.pointer, $0, "srgb", "srgb", 8) }
            }
            if image.hasAlpha {
                let source = image
                image = try run("flattening") { wi_flatten(source.pointer, $0, 255, 255, 255) }
            }
            if wi_band_format(image.pointer) != Int32(VIPS_FORMAT_UCHAR.rawValue) {
                let source = image
                image = try run("casting") { wi_cast_uchar(source.pointer, $0) }
            }
            guard image.bands == 3 else { throw ImageError.badImageData("the output has \(image.bands) bands, not 3") }
            var size = 0
            guard let memory = vips_image_write_to_memory(image.pointer, &size) else {
                throw ImageError.badImageData("cannot read the output's pixels: \(Vips.takeError())")
            }
            defer { wi_g_free(memory) }
            let pixels = [UInt8](UnsafeRawBufferPointer(start: memory, count: size))
            return (pixels, image.width, image.height)
        }
    }

    /// What the output of `testCase` should show, resized to `width` × `height` as
    /// libvips' thumbnail resizes: the sRGB original, or for CMYK, whose gamut is smaller
    /// than sRGB's, the picture as a browser shows it.
    package static func reference(_ testCase: Case, width: Int, height: Int) throws -> [UInt8] {
        let image: Image
        if testCase.space.isCMYK {
            let shown = try shownPixels(of: picture(testCase))
            image = try Image(pixels: shown.pixels, width: shown.width, height: shown.height, channels: 3)
        } else {
            image = try original()
        }
        let source = image.handle
        let resized = try run("resizing the reference") {
            wi_thumbnail_image(source.pointer, $0, Int32(width), Int32(height), Int32(VIPS_SIZE_FORCE.rawValue), 1, 0)
        }
        var size = 0
        guard let memory = vips_image_write_to_memory(resized.pointer, &size) else {
            throw ImageError.badImageData("cannot read the reference: \(Vips.takeError())")
        }
        defer { wi_g_free(memory) }
        return [UInt8](UnsafeRawBufferPointer(start: memory, count: size))
    }

    /// The mean CIE ΔE76 between what a browser shows of `output` and the reference of
    /// `testCase` at the output's size, encoded as the output is (its format, at `quality`
    /// when lossy) and read back: what the codec itself loses (lossy WebP's halved chroma
    /// blurs the edges of saturated bars by about 5) is not the colour management's.
    package static func meanDeltaE(output: Data, for testCase: Case, quality: Int) throws -> Double {
        let shown = try shownPixels(of: output)
        let expected = try reference(testCase, width: shown.width, height: shown.height)
        let format = ImageFormat(data: output)
        guard format == .jpeg || format == .webp else { return ColorDifference.meanDeltaE76(shown.pixels, expected) }
        let image = try Image(pixels: expected, width: shown.width, height: shown.height, channels: 3)
        let encoded = try VipsCoder.shared.encode(image, options: ImageEncodeOptions(format: format, quality: quality))
        return ColorDifference.meanDeltaE76(shown.pixels, try shownPixels(of: encoded).pixels)
    }

    private static func run(
        _ what: String, _ operation: (UnsafeMutablePointer<UnsafeMutablePointer<VipsImage>?>) -> Int32
    ) throws -> VipsImageHandle {
        try Vips.start()
        return try Vips.run(what, operation)
    }
}

/// CIE colour differences between 8-bit sRGB pixels, computed here rather than by the
/// library under test.
package enum ColorDifference {
    /// The mean ΔE76 (Euclidean distance in CIE L\*a\*b\*, D65) over pixels of two
    /// interleaved RGB buffers of one size.
    package static func meanDeltaE76(_ left: [UInt8], _ right: [UInt8]) -> Double {
        precondition(left.count == right.count && left.count % 3 == 0, "two RGB buffers of one size")
        var total = 0.0
        for base in stride(from: 0, to: left.count, by: 3) {
            let a = lab(left[base], left[base + 1], left[base + 2])
            let b = lab(right[base], right[base + 1], right[base + 2])
            total += ((a.0 - b.0) * (a.0 - b.0) + (a.1 - b.1) * (a.1 - b.1) + (a.2 - b.2) * (a.2 - b.2)).squareRoot()
        }
        return total / Double(left.count / 3)
    }

    /// CIE L\*a\*b\* of an sRGB colour, D65 white.
    package static func lab(_ red: UInt8, _ green: UInt8, _ blue: UInt8) -> (Double, Double, Double) {
        func linear(_ value: UInt8) -> Double {
            let v = Double(value) / 255
            return v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4)
        }
        let (r, g, b) = (linear(red), linear(green), linear(blue))
        let x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047
        let y = 0.2126 * r + 0.7152 * g + 0.0722 * b
        let z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883
        func f(_ t: Double) -> Double { t > 216.0 / 24389 ? cbrt(t) : (24389.0 / 27 * t + 16) / 116 }
        let (fx, fy, fz) = (f(x), f(y), f(z))
        return (116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz))
    }
}
