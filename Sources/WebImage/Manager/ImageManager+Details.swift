import Foundation

extension ImageManager {
    /// The details of the image at `url` (``ImageDetails``): made once from the cached
    /// original or one download, then kept in the variant caches like any variant, and
    /// shared by concurrent callers.
    /// - Parameters:
    ///   - url: the image's URL.
    ///   - includeGPS: whether to include the EXIF position (left out by default).
    public func loadDetails(for url: URL, includeGPS: Bool = false) async throws(ImageError) -> ImageDetails {
        try await loadDetails(ImageRequest(url: url), includeGPS: includeGPS)
    }

    /// The details of `request`'s source, loaded, cached and limited as `request` says
    /// (its processing and output are replaced by ``ImageOutput/details(includeGPS:)``).
    public func loadDetails(_ request: ImageRequest, includeGPS: Bool = false) async throws(ImageError) -> ImageDetails {
        var request = request
        request.processing = .none
        request.output = .details(includeGPS: includeGPS)
        return try ImageDetails(json: try await loadVariant(request).variant.data)
    }

    /// The ThumbHash of the image at `url` after `transformer`, cached and coalesced like
    /// a variant; decode it with ``ThumbHash/image()`` for an ``ImageTarget`` placeholder.
    public func loadThumbHash(for url: URL, transformer: (any ImageTransformer)? = nil) async throws(ImageError) -> ThumbHash {
        try await loadThumbHash(ImageRequest(url: url, processing: ImageProcessing(transformer: transformer)))
    }

    /// The ThumbHash of `request`'s source after its processing, loaded, cached and limited
    /// as `request` says (its output is replaced by ``ImageOutput/thumbHash``).
    public func loadThumbHash(_ request: ImageRequest) async throws(ImageError) -> ThumbHash {
        var request = request
        request.output = .thumbHash
        let result = try await loadVariant(request)
        return try ThumbHash(base64: String(decoding: result.variant.data, as: UTF8.self))
    }
}
