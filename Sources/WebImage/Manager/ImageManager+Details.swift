import Foundation

extension ImageManager {
    /// The details of the image at `url` (``ImageDetails``): made once from the cached
    /// original or one download, then kept in the variant caches like any variant, and
    /// shared by concurrent callers.
    /// - Parameters:
    ///   - url: the image's URL.
    ///   - includeGPS: whether to include the EXIF position (left out by default).
    ///   - options: the load's options, as for any load.
    ///   - context: the load's context, as for any load.
    public func loadDetails(
        for url: URL, includeGPS: Bool = false, options: ImageOptions = [], context: ImageContext? = nil
    ) async throws(ImageError) -> ImageDetails {
        let result = try await loadVariant(VariantRequest(url: url, output: .details(includeGPS: includeGPS)), options: options, context: context)
        return try ImageDetails(json: result.variant.data)
    }

    /// The ThumbHash of the image at `url` after `transformer`, cached and coalesced like
    /// a variant; decode it with ``ThumbHash/image()`` for an ``ImageTarget`` placeholder.
    public func loadThumbHash(
        for url: URL, transformer: (any ImageTransformer)? = nil, options: ImageOptions = [], context: ImageContext? = nil
    ) async throws(ImageError) -> ThumbHash {
        let request = VariantRequest(url: url, transformer: transformer, output: .thumbHash)
        let result = try await loadVariant(request, options: options, context: context)
        return try ThumbHash(base64: String(decoding: result.variant.data, as: UTF8.self))
    }
}
