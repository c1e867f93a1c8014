import CColorTransforms
import CVips
import Foundation

/// Colour management on libvips: reading an image's profile, and bringing its pixels to
/// sRGB with it, as a browser shows them.
enum VipsColor {
    /// When a decode converts an image's colours to sRGB.
    enum Conversion: Equatable {
        /// Never: the image has no profile, an sRGB one, or keeps its own.
        case none
        /// At the end of the decode, once the image has its final size: an 8-bit RGB or grey
        /// image with a profile that is not sRGB. Converting the fewest pixels costs least,
        /// and the resize on the way is the same in either space but for its rounding.
        case atEnd
        /// Right after loading, before any resize: a 16-bit image (converted from its 16-bit
        /// values, then brought to 8 bits) and a CMYK one (whose resize needs RGB).
        case atLoad
    }

    /// How a decode of `image`, as loaded, converts its colours: `keepingProfile` keeps an
    /// RGB or grey image's pixels in its profile's space; CMYK is converted whatever it
    /// asks, since every transformer and encoder works on RGB.
    static func conversion(of image: VipsImageHandle, keepingProfile: Bool) -> Conversion {
        if wi_interpretation(image.pointer) == Int32(VIPS_INTERPRETATION_CMYK.rawValue) { return .atLoad }
        guard !keepingProfile, let profile = usableProfile(of: image), !profile.isSRGB else { return .none }
        let sixteenBit = wi_band_format(image.pointer) == Int32(VIPS_FORMAT_USHORT.rawValue)
        return sixteenBit ? .atLoad : .atEnd
    }

    /// The ICC profile `image` carries, when it carries a well-formed one.
    static func profile(of image: VipsImageHandle) -> ICCProfile? {
        var length = 0
        guard let bytes = wi_get_blob(image.pointer, VIPS_META_ICC_NAME, &length), length > 0 else { return nil }
        return ICCProfile(data: Data(bytes: bytes, count: length))
    }

    /// Whether `image`, 8-bit RGB or RGB and alpha in `profile`'s space, can be converted
    /// by ``convertInMemory(_:from:)``.
    static func convertsInMemory(_ image: VipsImageHandle, profile: ICCProfile) -> Bool {
        profile.colorSpace == .rgb && (image.bands == 3 || image.bands == 4)
            && wi_band_format(image.pointer) == Int32(VIPS_FORMAT_UCHAR.rawValue)
    }

    /// Converts `image`, in memory and owned by the caller alone, from `profile` to sRGB in
    /// place with a colour transform kept for the profile, and removes the profile; `false`
    /// when the colour engine cannot read the profile, the image untouched.
    static func convertInMemory(_ image: VipsImageHandle, from profile: ICCProfile) -> Bool {
        guard let pixels = wi_memory_pixels(image.pointer) else { return false }
        let status = profile.data.withUnsafeBytes { bytes in
            wi_rgb8_to_srgb(bytes.baseAddress, bytes.count, pixels, image.width * image.height, Int32(image.bands))
        }
        guard status == 0 else { return false }
        wi_remove(image.pointer, VIPS_META_ICC_NAME)
        return true
    }

    /// How many colour transforms ``convertInMemory(_:from:)`` has made: one a profile while
    /// it stays among the few most recent.
    static var transformsMade: Int { Int(wi_rgb8_transforms_made()) }

    /// The profile of `image` when it describes the image's own colour bands: an RGB profile
    /// on an RGB image, a grey one on a grey image. A profile of another space is not
    /// used: libvips would refuse it, and browsers ignore it.
    static func usableProfile(of image: VipsImageHandle) -> ICCProfile? {
        guard let profile = profile(of: image) else { return nil }
        let colourBands = image.bands - (image.hasAlpha ? 1 : 0)
        switch profile.colorSpace {
        case .rgb: return colourBands == 3 ? profile : nil
        case .grey: return colourBands == 1 ? profile : nil
        case .cmyk: return colourBands == 4 ? profile : nil
        case .lab, .other: return nil
        }
    }

    /// `image` in 8-bit sRGB, converted with its embedded profile (libvips' CMYK profile for
    /// a CMYK image without one), carrying no profile: what every image means without one.
    /// A grey image stays grey, converted through sRGB.
    static func toSRGB(_ image: VipsImageHandle, failure: Vips.Failure = .badImageData) throws(ImageError) -> VipsImageHandle {
        let grey = image.bands - (image.hasAlpha ? 1 : 0) < 3
        let source = image
        var result = try Vips.run("converting the colour profile to sRGB", failure: failure) {
            wi_icc_to_srgb(source.pointer, $0)
        }
        if grey {
            let colour = result
            result = try Vips.run("converting to grey", failure: failure) {
                wi_colourspace(colour.pointer, $0, Int32(VIPS_INTERPRETATION_B_W.rawValue))
            }
        }
        return try withoutProfile(result, failure: failure)
    }

    /// `image` converted from its profile (sRGB when it has none) to `profile`, which it
    /// then carries.
    static func convert(
        _ image: VipsImageHandle, to profile: ICCProfile, failure: Vips.Failure
    ) throws(ImageError) -> VipsImageHandle {
        let source = image
        let imported = try Vips.run("reading the colour profile", failure: failure) { wi_icc_import(source.pointer, $0, "srgb") }
        // The export writes to the profile the image carries: the target's, on a copy.
        let target = try Vips.run("copying", failure: failure) { wi_copy(imported.pointer, $0) }
        profile.data.withUnsafeBytes { wi_set_icc(target.pointer, $0.baseAddress, $0.count) }
        return try Vips.run("converting to the colour profile", failure: failure) { wi_icc_export(target.pointer, $0, 8) }
    }

    /// A copy of `image` without its ICC profile (the pixels are shared).
    static func withoutProfile(_ image: VipsImageHandle, failure: Vips.Failure) throws(ImageError) -> VipsImageHandle {
        guard wi_has_icc(image.pointer) != 0 else { return image }
        let source = image
        // A copy of its own: fields are only ever removed from an image nobody else holds.
        let copy = try Vips.run("copying", failure: failure) { wi_copy(source.pointer, $0) }
        wi_remove(copy.pointer, VIPS_META_ICC_NAME)
        return copy
    }

    /// One of libvips' built-in profiles by name (`srgb`, `p3`, `cmyk`).
    static func builtInProfile(_ name: String) -> ICCProfile? {
        guard (try? Vips.start()) != nil, let blob = wi_builtin_profile(name) else {
            _ = Vips.takeError()
            return nil
        }
        defer { wi_area_unref(blob) }
        var length = 0
        guard let bytes = wi_blob_data(blob, &length), length > 0 else { return nil }
        return ICCProfile(data: Data(bytes: bytes, count: length))
    }
}
