import Foundation

/// What the disk cache keeps beside an entry's bytes: the HTTP validators needed to
/// revalidate it (`refreshCached`) and when it was stored. It lives in the
/// entry's file, so it survives a restart.
public struct CacheMetadata: Sendable, Hashable {
    /// The response's `ETag`, sent back as `If-None-Match`.
    public var etag: String?
    /// The response's `Last-Modified`, exactly as the server sent it, sent back as
    /// `If-Modified-Since`.
    public var lastModified: String?
    /// The response's `Cache-Control`, exactly as the server sent it.
    public var cacheControl: String?
    /// The response's `Expires`, exactly as the server sent it.
    public var expires: String?
    /// When the response stops being fresh (from `Cache-Control: max-age`), if it said.
    public var expirationDate: Date?
    /// When the entry was written. ``DiskCache/store(_:forKey:metadata:)`` sets it to the
    /// time of the write; ``DiskCache/updateMetadata(_:forKey:)`` writes it as given.
    public var storedDate: Date
    /// The URL the bytes were downloaded from, recorded for entries that hold a download
    /// as it came (not for transformed variants), so that the entry can be revalidated
    /// without knowing how its key was made (`webimage refresh`). `nil` in entries written
    /// before it was recorded.
    public var sourceURL: URL?
    /// The pixel size of the stored image, when its writer recorded it (encoded variants do).
    public var pixelSize: PixelSize?
    /// For an entry made from a download (an encoded variant): the `ETag` of the source it
    /// was made from.
    public var sourceETag: String?
    /// For an entry made from a download (an encoded variant): the `Last-Modified` of the
    /// source it was made from.
    public var sourceLastModified: String?
    /// For an entry made from a download (an encoded variant): the `Cache-Control` of the
    /// source it was made from.
    public var sourceCacheControl: String?
    /// For an entry made from a download (an encoded variant): the `Expires` of the source
    /// it was made from.
    public var sourceExpires: String?
    /// For an entry made from a download (an encoded variant): the pixel size of one frame
    /// of the source, as stored (before any EXIF turn).
    public var sourcePixelSize: PixelSize?
    /// For an entry made from a download (an encoded variant): the source's size in bytes.
    public var sourceByteCount: Int?
    /// For an encoded variant: the encoder quality it was written at, when known.
    public var encodeQuality: Int?
    /// For an encoded variant whose quality was chosen by ``QualitySearch``: its SSIM
    /// against the image that was encoded.
    public var similarityScore: Double?

    /// Creates metadata; `storedDate` defaults to now.
    public init(
        etag: String? = nil, lastModified: String? = nil, expirationDate: Date? = nil, storedDate: Date = Date(), sourceURL: URL? = nil,
        pixelSize: PixelSize? = nil, sourceETag: String? = nil, sourceLastModified: String? = nil,
        encodeQuality: Int? = nil, similarityScore: Double? = nil, cacheControl: String? = nil, expires: String? = nil,
        sourceCacheControl: String? = nil, sourceExpires: String? = nil, sourcePixelSize: PixelSize? = nil, sourceByteCount: Int? = nil
    ) {
        self.etag = etag
        self.lastModified = lastModified
        self.expirationDate = expirationDate
        self.storedDate = storedDate
        self.sourceURL = sourceURL
        self.pixelSize = pixelSize
        self.sourceETag = sourceETag
        self.sourceLastModified = sourceLastModified
        self.encodeQuality = encodeQuality
        self.similarityScore = similarityScore
        self.cacheControl = cacheControl
        self.expires = expires
        self.sourceCacheControl = sourceCacheControl
        self.sourceExpires = sourceExpires
        self.sourcePixelSize = sourcePixelSize
        self.sourceByteCount = sourceByteCount
    }

    /// Whether ``expirationDate`` has passed at `date` (never, when there is none).
    public func isExpired(at date: Date = Date()) -> Bool {
        expirationDate.map { $0 <= date } ?? false
    }

    /// Whether there is a validator to revalidate with.
    public var hasValidators: Bool { etag != nil || lastModified != nil }
}
