import Crypto
import Foundation
import NIOCore

/// An image encoded for serving: bytes in a requested format, with what an HTTP response
/// says about them. ``ImageManager/loadVariant(_:options:context:)`` makes them and caches
/// them in memory and on disk under the variant's key.
///
/// A class of immutable values, so that handing one out (from a memory hit, to many
/// waiting requests) is one retain; its bytes are held once, in a `ByteBuffer` that a
/// server can write to a socket without copying.
public final class EncodedVariant: Sendable {
    /// The encoded image.
    public let bytes: ByteBuffer
    /// The format of ``bytes`` (read from them).
    public let format: ImageFormat
    /// The image's pixel size (one frame of an animation).
    public let pixelSize: PixelSize
    /// A strong validator of ``bytes``: the first 16 bytes of their SHA-256 as hex, quoted
    /// (`"3f2a…"`), usable as an HTTP `ETag` as it is.
    public let etag: String
    /// When the variant was made (an HTTP server's `Last-Modified`).
    public let createdAt: Date
    /// The `ETag` of the source the variant was made from, if the source had one.
    public let sourceETag: String?
    /// The `Last-Modified` of the source the variant was made from, if the source had one.
    public let sourceLastModified: String?
    /// The `Cache-Control` of the source the variant was made from, if the source had one.
    public let sourceCacheControl: String?
    /// The `Expires` of the source the variant was made from, if the source had one.
    public let sourceExpires: String?
    /// When the source the variant was made from stops being fresh, as its response said
    /// (``CacheMetadata/expirationDate``): the variant is as fresh as its source.
    public let sourceExpirationDate: Date?
    /// The pixel size of one frame of the source the variant was made from, as stored
    /// (before any EXIF turn), when known.
    public let sourcePixelSize: PixelSize?
    /// The size in bytes of the source the variant was made from, when known.
    public let sourceByteCount: Int?
    /// The encoder quality the bytes were written at, when known (lossy formats).
    public let quality: Int?
    /// The SSIM of the bytes against the image encoded, when the quality was chosen for
    /// the image (``VariantEncoding/autoQuality``).
    public let score: Double?

    /// Creates a variant from its bytes; the ETag is computed unless given.
    public init(
        data: Data, pixelSize: PixelSize, etag: String? = nil, createdAt: Date = Date(),
        sourceETag: String? = nil, sourceLastModified: String? = nil, quality: Int? = nil, score: Double? = nil,
        sourceCacheControl: String? = nil, sourceExpires: String? = nil, sourcePixelSize: PixelSize? = nil, sourceByteCount: Int? = nil,
        sourceExpirationDate: Date? = nil
    ) {
        self.bytes = ByteBuffer(bytes: data)
        self.format = ImageFormat(data: data)
        self.pixelSize = pixelSize
        self.etag = etag ?? Self.etag(for: data)
        self.createdAt = createdAt
        self.sourceETag = sourceETag
        self.sourceLastModified = sourceLastModified
        self.sourceCacheControl = sourceCacheControl
        self.sourceExpires = sourceExpires
        self.sourceExpirationDate = sourceExpirationDate
        self.sourcePixelSize = sourcePixelSize
        self.sourceByteCount = sourceByteCount
        self.quality = quality
        self.score = score
    }

    /// The variant stored as `entry` (see ``metadata``); `nil` when the entry does not
    /// record a variant's pixel size.
    public convenience init?(entry: DiskCacheEntry) {
        guard let pixelSize = entry.metadata.pixelSize else { return nil }
        self.init(
            data: entry.data, pixelSize: pixelSize, etag: entry.metadata.etag, createdAt: entry.metadata.storedDate,
            sourceETag: entry.metadata.sourceETag, sourceLastModified: entry.metadata.sourceLastModified,
            quality: entry.metadata.encodeQuality, score: entry.metadata.similarityScore,
            sourceCacheControl: entry.metadata.sourceCacheControl, sourceExpires: entry.metadata.sourceExpires,
            sourcePixelSize: entry.metadata.sourcePixelSize, sourceByteCount: entry.metadata.sourceByteCount,
            sourceExpirationDate: entry.metadata.expirationDate
        )
    }

    /// The encoded bytes as `Data` (a copy of ``bytes``).
    public var data: Data { Data(bytes.readableBytesView) }

    /// The number of encoded bytes.
    public var count: Int { bytes.readableBytes }

    /// What a cache stores beside the bytes so that ``init(entry:)`` gives this variant back.
    public var metadata: CacheMetadata {
        CacheMetadata(
            etag: etag, expirationDate: sourceExpirationDate, storedDate: createdAt, pixelSize: pixelSize, sourceETag: sourceETag,
            sourceLastModified: sourceLastModified,
            encodeQuality: quality, similarityScore: score, sourceCacheControl: sourceCacheControl, sourceExpires: sourceExpires,
            sourcePixelSize: sourcePixelSize, sourceByteCount: sourceByteCount
        )
    }

    /// A variant made from `source`, whose response said `source.metadata` and whose
    /// header says `info` (nil: unknown): its validators, caching headers, size and
    /// length are kept as the source's.
    convenience init(data: Data, pixelSize: PixelSize, source: SourceData, info: ImageInfo?, quality: Int? = nil, score: Double? = nil) {
        let metadata = source.metadata
        self.init(
            data: data, pixelSize: pixelSize, sourceETag: metadata.etag, sourceLastModified: metadata.lastModified, quality: quality,
            score: score, sourceCacheControl: metadata.cacheControl, sourceExpires: metadata.expires, sourcePixelSize: info?.pixelSize,
            // A decoded image from the memory cache comes without its bytes.
            sourceByteCount: source.data.isEmpty ? nil : source.data.count, sourceExpirationDate: metadata.expirationDate
        )
    }

    /// `"<first 16 bytes of SHA-256, hex>"`.
    static func etag(for data: Data) -> String {
        let digest = SHA256.hash(data: data)
        let hex: [UInt8] = Array("0123456789abcdef".utf8)
        var text = [UInt8(ascii: "\"")]
        for byte in digest.prefix(16) {
            text.append(hex[Int(byte >> 4)])
            text.append(hex[Int(byte & 0x0F)])
        }
        text.append(UInt8(ascii: "\""))
        return String(decoding: text, as: UTF8.self)
    }
}
