import CWebImageSupport
import Foundation

/// The format of one disk cache file, `<root>/<namespace>/<md5(key)>.<ext>`:
///
/// ```
/// offset 0              the stored bytes (the encoded image), dataLength bytes
/// dataLength            metadata records, metadataLength bytes
/// dataLength + mLength  footer, 28 bytes, little-endian:
///                         +0   UInt64  dataLength
///                         +8   UInt32  metadataLength
///                         +12  UInt16  format version (1)
///                         +14  UInt16  flags (0)
///                         +16  UInt32  CRC-32C of every byte of the file before this field
///                         +20  8 bytes magic 89 57 49 43 0D 0A 1A 0A ("\x89WIC\r\n\x1A\n")
/// ```
///
/// The image comes first so that the file still opens in an image viewer (decoders stop
/// at the image's end marker). A metadata record is a tag byte, a UInt32 length and that
/// many bytes: 1 stored date and 2 expiration date (Float64 seconds since 1970), 3 ETag,
/// 4 Last-Modified, 5 the key (UTF-8), 6 the source URL (UTF-8, only for entries that hold
/// a download as it came), 7 the pixel size (two UInt32, width then height), 8 and 9 the
/// source's ETag and Last-Modified (for an encoded variant: the validators of the original
/// it was made from). Unknown tags are skipped, so records can be added without a version
/// change: older readers ignore records they do not know, and entries without a record
/// read back without its value.
///
/// A file is an entry only if it ends with the magic, its length is exactly
/// dataLength + metadataLength + 28, and the CRC matches; anything else — a truncated
/// file, a flipped bit, a file of another program — is damaged. The magic closes the file
/// and the checksum covers the lengths, so no prefix of a valid file is itself valid.
enum DiskEntryFormat {
    /// Bytes in the fixed footer.
    static let footerSize = 28
    /// The current format version.
    static let version: UInt16 = 1
    /// The magic that ends every entry, PNG-style: a high byte, then CR LF, ^Z, LF catch
    /// text-mode transfers.
    static let magic: [UInt8] = [0x89, 0x57, 0x49, 0x43, 0x0D, 0x0A, 0x1A, 0x0A]
    private static let magicValue = magic.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }

    private enum Tag: UInt8 {
        case storedDate = 1, expirationDate = 2, etag = 3, lastModified = 4, key = 5, sourceURL = 6
        case pixelSize = 7, sourceETag = 8, sourceLastModified = 9, encodeQuality = 10, similarityScore = 11
        case cacheControl = 12, expires = 13, sourceCacheControl = 14, sourceExpires = 15, sourcePixelSize = 16, sourceByteCount = 17
    }

    /// How a file's bytes read.
    enum Layout: Equatable {
        /// A valid entry: the stored bytes are the first `dataLength`, then the metadata.
        case entry(dataLength: Int, metadataLength: Int)
        /// No trailer at all: a plain file (acceptable in read-only paths only).
        case noTrailer
        /// A trailer whose lengths or checksum do not match: truncated or garbled.
        case damaged
        /// A trailer of another format version, which another build of WebImage sharing the
        /// directory may read: not this build's to read, nor to remove.
        case otherVersion(UInt16)
    }

    /// The metadata records and footer that follow `data` in its file, the footer recording
    /// `fileVersion` (the current ``version``; tests write files of other versions).
    static func trailer(for data: Data, metadata: CacheMetadata, key: String, version fileVersion: UInt16 = version) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(footerSize + 64 + key.utf8.count)
        append(.storedDate, double: metadata.storedDate.timeIntervalSince1970, to: &bytes)
        if let expiration = metadata.expirationDate {
            append(.expirationDate, double: expiration.timeIntervalSince1970, to: &bytes)
        }
        if let etag = metadata.etag { append(.etag, string: etag, to: &bytes) }
        if let lastModified = metadata.lastModified { append(.lastModified, string: lastModified, to: &bytes) }
        append(.key, string: key, to: &bytes)
        if let sourceURL = metadata.sourceURL { append(.sourceURL, string: sourceURL.absoluteString, to: &bytes) }
        if let size = metadata.pixelSize { append(.pixelSize, size: size, to: &bytes) }
        if let size = metadata.sourcePixelSize { append(.sourcePixelSize, size: size, to: &bytes) }
        if let count = metadata.sourceByteCount, let value = UInt64(exactly: count) {
            bytes.append(Tag.sourceByteCount.rawValue)
            appendInteger(UInt32(8), to: &bytes)
            appendInteger(value, to: &bytes)
        }
        if let sourceETag = metadata.sourceETag { append(.sourceETag, string: sourceETag, to: &bytes) }
        if let sourceLastModified = metadata.sourceLastModified { append(.sourceLastModified, string: sourceLastModified, to: &bytes) }
        if let cacheControl = metadata.cacheControl { append(.cacheControl, string: cacheControl, to: &bytes) }
        if let expires = metadata.expires { append(.expires, string: expires, to: &bytes) }
        if let sourceCacheControl = metadata.sourceCacheControl { append(.sourceCacheControl, string: sourceCacheControl, to: &bytes) }
        if let sourceExpires = metadata.sourceExpires { append(.sourceExpires, string: sourceExpires, to: &bytes) }
        if let quality = metadata.encodeQuality, let value = UInt32(exactly: quality) {
            bytes.append(Tag.encodeQuality.rawValue)
            appendInteger(UInt32(4), to: &bytes)
            appendInteger(value, to: &bytes)
        }
        if let score = metadata.similarityScore { append(.similarityScore, double: score, to: &bytes) }
        let metadataLength = bytes.count
        appendInteger(UInt64(data.count), to: &bytes)
        appendInteger(UInt32(metadataLength), to: &bytes)
        appendInteger(fileVersion, to: &bytes)
        appendInteger(UInt16(0), to: &bytes)
        var crc = data.withUnsafeBytes { webimage_crc32c(0, $0.baseAddress, $0.count) }
        crc = bytes.withUnsafeBytes { webimage_crc32c(crc, $0.baseAddress, $0.count) }
        appendInteger(crc, to: &bytes)
        bytes += magic
        return bytes
    }

    /// Reads the layout of a whole file's bytes, checking magic, version and lengths, and
    /// the checksum unless `verifyChecksum` is false (the file was verified before and has
    /// not changed since, see `VerifiedFiles`).
    static func layout(of file: UnsafeRawBufferPointer, verifyChecksum: Bool = true) -> Layout {
        let count = file.count
        guard count >= footerSize, file.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self) == magicValue else {
            return .noTrailer
        }
        let footer = count - footerSize
        let dataLength = UInt64(littleEndian: file.loadUnaligned(fromByteOffset: footer, as: UInt64.self))
        let metadataLength = Int(UInt32(littleEndian: file.loadUnaligned(fromByteOffset: footer + 8, as: UInt32.self)))
        let fileVersion = UInt16(littleEndian: file.loadUnaligned(fromByteOffset: footer + 12, as: UInt16.self))
        let storedCRC = UInt32(littleEndian: file.loadUnaligned(fromByteOffset: footer + 16, as: UInt32.self))
        guard fileVersion == version else { return .otherVersion(fileVersion) }
        guard dataLength <= UInt64(footer), Int(dataLength) + metadataLength == footer else {
            return .damaged
        }
        guard !verifyChecksum || webimage_crc32c(0, file.baseAddress, footer + 16) == storedCRC else { return .damaged }
        return .entry(dataLength: Int(dataLength), metadataLength: metadataLength)
    }

    /// Decodes metadata records; `nil` when they are malformed.
    static func metadata(from records: UnsafeRawBufferPointer) -> (metadata: CacheMetadata, key: String?)? {
        var metadata = CacheMetadata(storedDate: Date(timeIntervalSince1970: 0))
        var key: String?
        var offset = 0
        while offset < records.count {
            guard records.count - offset >= 5 else { return nil }
            let tag = records[offset]
            let length = Int(UInt32(littleEndian: records.loadUnaligned(fromByteOffset: offset + 1, as: UInt32.self)))
            offset += 5
            guard records.count - offset >= length else { return nil }
            let value = UnsafeRawBufferPointer(rebasing: records[offset..<offset + length])
            offset += length
            switch Tag(rawValue: tag) {
            case .storedDate:
                guard let seconds = double(value) else { return nil }
                metadata.storedDate = Date(timeIntervalSince1970: seconds)
            case .expirationDate:
                guard let seconds = double(value) else { return nil }
                metadata.expirationDate = Date(timeIntervalSince1970: seconds)
            case .etag: metadata.etag = String(decoding: value, as: UTF8.self)
            case .lastModified: metadata.lastModified = String(decoding: value, as: UTF8.self)
            case .key: key = String(decoding: value, as: UTF8.self)
            case .sourceURL: metadata.sourceURL = URL(string: String(decoding: value, as: UTF8.self))
            case .pixelSize:
                guard let size = pixelSize(value) else { return nil }
                metadata.pixelSize = size
            case .sourcePixelSize:
                guard let size = pixelSize(value) else { return nil }
                metadata.sourcePixelSize = size
            case .sourceByteCount:
                guard value.count == 8, let count = Int(exactly: UInt64(littleEndian: value.loadUnaligned(as: UInt64.self))) else { return nil }
                metadata.sourceByteCount = count
            case .sourceETag: metadata.sourceETag = String(decoding: value, as: UTF8.self)
            case .sourceLastModified: metadata.sourceLastModified = String(decoding: value, as: UTF8.self)
            case .cacheControl: metadata.cacheControl = String(decoding: value, as: UTF8.self)
            case .expires: metadata.expires = String(decoding: value, as: UTF8.self)
            case .sourceCacheControl: metadata.sourceCacheControl = String(decoding: value, as: UTF8.self)
            case .sourceExpires: metadata.sourceExpires = String(decoding: value, as: UTF8.self)
            case .encodeQuality:
                guard value.count == 4 else { return nil }
                metadata.encodeQuality = Int(UInt32(littleEndian: value.loadUnaligned(as: UInt32.self)))
            case .similarityScore:
                guard let score = double(value) else { return nil }
                metadata.similarityScore = score
            case nil: continue
            }
        }
        return (metadata, key)
    }

    /// A width and a height, 32 bits each.
    private static func pixelSize(_ value: UnsafeRawBufferPointer) -> PixelSize? {
        guard value.count == 8 else { return nil }
        let width = UInt32(littleEndian: value.loadUnaligned(as: UInt32.self))
        let height = UInt32(littleEndian: value.loadUnaligned(fromByteOffset: 4, as: UInt32.self))
        return PixelSize(width: Int(width), height: Int(height))
    }

    private static func append(_ tag: Tag, size: PixelSize, to bytes: inout [UInt8]) {
        guard let width = UInt32(exactly: size.width), let height = UInt32(exactly: size.height) else { return }
        bytes.append(tag.rawValue)
        appendInteger(UInt32(8), to: &bytes)
        appendInteger(width, to: &bytes)
        appendInteger(height, to: &bytes)
    }

    private static func double(_ value: UnsafeRawBufferPointer) -> Double? {
        guard value.count == 8 else { return nil }
        return Double(bitPattern: UInt64(littleEndian: value.loadUnaligned(as: UInt64.self)))
    }

    private static func append(_ tag: Tag, double: Double, to bytes: inout [UInt8]) {
        bytes.append(tag.rawValue)
        appendInteger(UInt32(8), to: &bytes)
        appendInteger(double.bitPattern, to: &bytes)
    }

    private static func append(_ tag: Tag, string: String, to bytes: inout [UInt8]) {
        bytes.append(tag.rawValue)
        appendInteger(UInt32(string.utf8.count), to: &bytes)
        bytes += string.utf8
    }

    private static func appendInteger<T: FixedWidthInteger>(_ value: T, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { bytes += $0 }
    }
}
