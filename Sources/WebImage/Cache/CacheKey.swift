import Crypto
import Foundation

/// How cache keys are made from URLs, how they map to disk file names, and how a
/// transformer's key is folded into them — SDWebImage's `cacheKeyForURL:`,
/// `SDDiskCacheFileNameForKey` and `SDTransformedKeyForKey`.
///
/// A key is a plain string. When it looks like a URL (`scheme://authority/path?query#fragment`)
/// only its path counts for extensions; for any other string the part before the first `?`
/// or `#` does.
public enum CacheKey {
    /// The longest extension kept in a file name. Longer ones are not real image
    /// extensions and would only eat into the file-name length limit.
    public static let maxFileExtensionLength = 16

    /// The cache key of `url`: its absolute string.
    public static func key(for url: URL) -> String {
        url.absoluteString
    }

    /// The disk file name of `key`: the lowercase hex MD5 of the key's UTF-8 bytes,
    /// then `.` and the extension of the key's path when it has one. The query and fragment
    /// are ignored; `:` and NUL are stripped from the extension; an extension that is then
    /// empty, longer than ``maxFileExtensionLength``, or not plain ASCII letters and digits
    /// is dropped. Example: `https://h/a/b.png?w=1` → `<md5>.png`.
    public static func fileName(forKey key: String) -> String {
        // Works on the UTF-8 bytes throughout: every disk read and write computes a file
        // name, and String-level slicing would cost more than the MD5 itself.
        var key = key
        return key.withUTF8 { bytes in
            var hasher = Insecure.MD5()
            hasher.update(bufferPointer: UnsafeRawBufferPointer(bytes))
            let digest = hasher.finalize()
            let ext = extensionBytes(of: bytes)
            return String(unsafeUninitializedCapacity: 33 + ext.count) { buffer in
                let hex: StaticString = "0123456789abcdef"
                var index = 0
                hex.withUTF8Buffer { digits in
                    for byte in digest {
                        buffer[index] = digits[Int(byte >> 4)]
                        buffer[index + 1] = digits[Int(byte & 0x0F)]
                        index += 2
                    }
                }
                if !ext.isEmpty {
                    buffer[index] = UInt8(ascii: ".")
                    index += 1
                    for byte in ext where byte != UInt8(ascii: ":") && byte != 0 {
                        buffer[index] = byte
                        index += 1
                    }
                }
                return index
            }
        }
    }

    /// The extension ``fileName(forKey:)`` appends, or `nil` when it appends none.
    public static func fileExtension(forKey key: String) -> String? {
        var key = key
        return key.withUTF8 { bytes in
            let ext = extensionBytes(of: bytes)
            return ext.isEmpty ? nil : String(decoding: ext.filter { $0 != UInt8(ascii: ":") && $0 != 0 }, as: UTF8.self)
        }
    }

    /// The key of `key` transformed by a transformer whose key is `transformerKey`:
    /// `-<transformerKey>` goes before the extension of the key's path, or at the end of the
    /// path when it has none; query and fragment stay as they were.
    /// `http://h/a.png?x=1#f` with `T` → `http://h/a-T.png?x=1#f`; `a.png` → `a-T.png`;
    /// a dot that starts the name begins no extension: `.image` → `.image-T`.
    /// In a URL, characters a path cannot hold (`?`, `#`, `%`, spaces…) are percent-encoded,
    /// so the transformer key never changes where the query starts.
    public static func transformedKey(_ key: String, transformerKey: String) -> String {
        guard !transformerKey.isEmpty else { return key }
        var bytes = Array(key.utf8)
        let (isURL, position) = bytes.withUnsafeBufferPointer { buffer -> (Bool, Int) in
            let end = queryStart(of: buffer)
            let path = buffer[pathStart(of: buffer, end: end)..<end]
            let componentStart = path.lastIndex(of: UInt8(ascii: "/")).map { $0 + 1 } ?? path.startIndex
            let isURL = authorityStart(of: buffer) != nil
            // Before the extension's dot, unless the name ends with a bare dot or the dot
            // starts the name (`.image` is a dot-file without an extension).
            if let dot = path[componentStart...].lastIndex(of: UInt8(ascii: ".")), dot > componentStart, dot + 1 < end {
                return (isURL, dot)
            }
            return (isURL, end)
        }
        var inserted: [UInt8] = [UInt8(ascii: "-")]
        inserted.reserveCapacity(transformerKey.utf8.count + 1)
        if isURL {
            appendPathEscaped(transformerKey, to: &inserted)
        } else {
            inserted.append(contentsOf: transformerKey.utf8)
        }
        bytes.insert(contentsOf: inserted, at: position)
        return String(decoding: bytes, as: UTF8.self)
    }

    private static let upperHexDigits = Array("0123456789ABCDEF".utf8)

    /// Appends the UTF-8 of `text` with every byte outside
    /// `! $ & ' ( ) * + , - . / 0-9 = @ A-Z _ a-z ~` written as `%XX` (upper-case hex):
    /// what swift-corelibs-foundation's `addingPercentEncoding(withAllowedCharacters:
    /// .urlPathAllowed)` gives (`:` and `;` escaped), at a fraction of its cost.
    static func appendPathEscaped(_ text: String, to output: inout [UInt8]) {
        let digits = upperHexDigits
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "!"), UInt8(ascii: "$"), UInt8(ascii: "&"), UInt8(ascii: "'"), UInt8(ascii: "("), UInt8(ascii: ")"),
                 UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: ","), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "/"),
                 UInt8(ascii: "="), UInt8(ascii: "@"), UInt8(ascii: "_"), UInt8(ascii: "~"):
                output.append(byte)
            default:
                output.append(contentsOf: [UInt8(ascii: "%"), digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
            }
        }
    }

    /// The key of the thumbnail of `key` decoded within `size` (SDWebImage's
    /// `SDThumbnailedKeyForKey`): `-Thumbnail(<w>x<h>,<1 or 0>)` inserted as a transformer
    /// key would be, the last number saying whether the aspect ratio is kept.
    public static func thumbnailKey(_ key: String, size: PixelSize, preserveAspectRatio: Bool) -> String {
        transformedKey(key, transformerKey: thumbnailTransformerKey(size: size, preserveAspectRatio: preserveAspectRatio))
    }

    /// The key of a decoded image made from the source cached under `key`: the thumbnail
    /// key first, then the transformer's, as SDWebImage appends them.
    static func processedKey(_ key: String, thumbnailPixelSize: PixelSize?, preserveAspectRatio: Bool, transformerKey: String?) -> String {
        var key = key
        if let thumbnailPixelSize { key = thumbnailKey(key, size: thumbnailPixelSize, preserveAspectRatio: preserveAspectRatio) }
        if let transformerKey { key = transformedKey(key, transformerKey: transformerKey) }
        return key
    }

    /// The part ``thumbnailKey(_:size:preserveAspectRatio:)`` inserts, without its `-`.
    static func thumbnailTransformerKey(size: PixelSize, preserveAspectRatio: Bool) -> String {
        "Thumbnail(\(size),\(preserveAspectRatio ? 1 : 0))"
    }

    /// Whether `key` already names a thumbnail (it holds a ``thumbnailKey(_:size:preserveAspectRatio:)``
    /// suffix), so that a thumbnail decode of it belongs under `key` itself.
    static func isThumbnailKey(_ key: String) -> Bool {
        key.contains("-Thumbnail(")
    }

    // MARK: Parsing

    /// The raw bytes of the key's path extension (after the dot, `:` and NUL still in), or
    /// an empty slice when the extension is to be dropped.
    private static func extensionBytes(of bytes: UnsafeBufferPointer<UInt8>) -> Slice<UnsafeBufferPointer<UInt8>> {
        let none = bytes[0..<0]
        let end = queryStart(of: bytes)
        let path = bytes[pathStart(of: bytes, end: end)..<end]
        let componentStart = path.lastIndex(of: UInt8(ascii: "/")).map { $0 + 1 } ?? path.startIndex
        // A leading dot names a dot-file (`.image`), not an extension.
        guard let dot = path[componentStart...].lastIndex(of: UInt8(ascii: ".")), dot > componentStart else { return none }
        let ext = path[(dot + 1)...]
        var kept = 0
        for byte in ext where byte != UInt8(ascii: ":") && byte != 0 {
            guard isASCIILetter(byte) || isASCIIDigit(byte) else { return none }
            kept += 1
        }
        return kept == 0 || kept > maxFileExtensionLength ? none : ext
    }

    /// The offset of the first `?` or `#`, or the end.
    private static func queryStart(of bytes: UnsafeBufferPointer<UInt8>) -> Int {
        bytes.firstIndex(where: { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }) ?? bytes.endIndex
    }

    /// Where the path starts in `bytes[..<end]`: after `scheme://authority` for a URL, at 0
    /// otherwise.
    private static func pathStart(of bytes: UnsafeBufferPointer<UInt8>, end: Int) -> Int {
        guard let authority = authorityStart(of: bytes), authority <= end else { return 0 }
        return bytes[authority..<end].firstIndex(of: UInt8(ascii: "/")) ?? end
    }

    /// The offset just after `scheme://` when `bytes` start with a URL scheme and `//`.
    private static func authorityStart(of bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")), colon > 0, isASCIILetter(bytes[0]) else { return nil }
        for byte in bytes[1..<colon] {
            guard isASCIILetter(byte) || isASCIIDigit(byte) || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".") else {
                return nil
            }
        }
        guard colon + 2 < bytes.count, bytes[colon + 1] == UInt8(ascii: "/"), bytes[colon + 2] == UInt8(ascii: "/") else { return nil }
        return colon + 3
    }

    private static func isASCIILetter(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20)
    }

    private static func isASCIIDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }
}
