import WebImage

/// The whole processing of a proxy URL as one ``ImageTransformer``: it plans for the size
/// of the image it is given and runs that plan's pipeline. Hand it to the ``ImageManager``
/// (context `transformer`) so the variant is made and cached by the library pipeline,
/// with ``ProcessingOptions/thumbnailPixelSize`` as the context's thumbnail size for
/// shrink-on-load.
///
/// Key: `proxy-` and the options' ``ProcessingOptions/variantKey`` with `/` written as `,`
/// and any byte outside `A-Z a-z 0-9 . _ - : ,` percent-encoded (a key must be safe in a
/// file name), e.g. `proxy-rt:fill,w:300,h:200`.
public struct ProxyTransformer: ImageTransformer {
    /// The options carried out.
    public let options: ProcessingOptions

    /// Creates the transformer of `options`.
    public init(options: ProcessingOptions) {
        self.options = options
    }

    public var key: String {
        var key = "proxy-"
        for byte in options.variantKey.utf8 {
            switch byte {
            case UInt8(ascii: "/"):
                key.append(",")
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "-"), UInt8(ascii: ":"), UInt8(ascii: ","):
                key.append(Character(Unicode.Scalar(byte)))
            default:
                let hex = String(byte, radix: 16, uppercase: true)
                key += byte < 16 ? "%0" + hex : "%" + hex
            }
        }
        return key
    }

    public func transform(_ image: Image) throws(ImageError) -> Image {
        let plan = options.plan(for: image.pixelSize)
        if plan.isIdentity { return image }
        return try plan.pipeline.transform(image)
    }
}
