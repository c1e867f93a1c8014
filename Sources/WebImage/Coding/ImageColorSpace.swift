import CVips

/// The colour space an image's pixels are stored in, as its header says.
public enum ImageColorSpace: String, Sendable, Hashable, Codable {
    /// 8-bit red, green and blue (sRGB, or the space of the image's profile).
    case rgb
    /// 16-bit red, green and blue.
    case rgb16
    /// 8-bit grey.
    case grey
    /// 16-bit grey.
    case grey16
    /// Cyan, magenta, yellow and black, as print files and some photo tools write them.
    case cmyk
    /// CIE L\*a\*b\*.
    case lab
    /// Any other (scRGB, XYZ, multispectral…).
    case other

    /// The space of `image` from its interpretation and sample format.
    init(_ image: VipsImageHandle) {
        let sixteenBit = wi_band_format(image.pointer) == Int32(VIPS_FORMAT_USHORT.rawValue)
        switch VipsInterpretation(rawValue: wi_interpretation(image.pointer)) {
        case VIPS_INTERPRETATION_sRGB, VIPS_INTERPRETATION_RGB: self = sixteenBit ? .rgb16 : .rgb
        case VIPS_INTERPRETATION_RGB16: self = .rgb16
        case VIPS_INTERPRETATION_B_W: self = sixteenBit ? .grey16 : .grey
        case VIPS_INTERPRETATION_GREY16: self = .grey16
        case VIPS_INTERPRETATION_CMYK: self = .cmyk
        case VIPS_INTERPRETATION_LAB, VIPS_INTERPRETATION_LABS, VIPS_INTERPRETATION_LABQ: self = .lab
        default: self = .other
        }
    }
}
