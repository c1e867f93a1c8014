import Foundation
import WebImage

extension ImageRequest {
    /// An encoded output of `url`: `transformer` (frame by frame for an animation) and a
    /// decode within `thumbnailPixelSize`, encoded as `encoding`; with `passthrough` the
    /// source's bytes as they are, and with `passthroughFormats` when its format is one of
    /// them. The shape most tests of encoded outputs ask for.
    package static func variant(
        url: URL,
        transformer: (any ImageTransformer)? = nil,
        thumbnailPixelSize: PixelSize? = nil,
        encoding: VariantEncoding = VariantEncoding(),
        passthrough: Bool = false,
        passthroughFormats: Set<ImageFormat> = [],
        preferEmbeddedThumbnail: Bool = false,
        options: ImageRequest.Options = []
    ) -> ImageRequest {
        if passthrough { return ImageRequest(url: url, output: .encoded(encoding, passthrough: .always), options: options) }
        return ImageRequest(
            url: url,
            processing: ImageProcessing(
                thumbnailPixelSize: thumbnailPixelSize, transformer: transformer, preferEmbeddedThumbnail: preferEmbeddedThumbnail
            ),
            output: .encoded(encoding, passthrough: passthroughFormats.isEmpty ? .never : .formats(passthroughFormats)),
            options: options
        )
    }

    /// This request with `options` added to its flags.
    package func adding(_ options: ImageRequest.Options) -> ImageRequest {
        var request = self
        request.options.formUnion(options)
        return request
    }

    /// This request with its source's limits replaced.
    package func limited(_ limits: ImageLimits, maxSourceBytes: Int? = nil) -> ImageRequest {
        var request = self
        request.limits = limits
        request.maxSourceBytes = maxSourceBytes
        return request
    }
}

extension ImageRequest {
    /// ``variantKeyPart``, empty for a decoded image or bytes.
    package var variantKey: String { variantKeyPart ?? "" }
}
