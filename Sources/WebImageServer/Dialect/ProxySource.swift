import Foundation
import WebImage

/// Decodes the source part of a proxy URL: base64url chunks with an optional `.ext`,
/// `plain/<percent-encoded URL>` with an optional `@ext`, or `enc/<encrypted source>`
/// with an optional `.ext` (``SourceURLCipher``).
enum ProxySource {
    /// The usage quoted when the source is bad.
    static let usage = "a URL-safe base64 source (optionally split by '/', then .<ext>), plain/<percent-encoded URL>[@<ext>] or enc/<encrypted source>[.<ext>]"

    /// Decodes `segments` (everything after the options) into a URL and an optional extension.
    /// - Parameters:
    ///   - cipher: the key of `enc/` sources; `nil`: they are refused.
    ///   - rewrite: applied to a plain or base64 source's URL once decoded.
    ///   - base64IncludesFilename: a base64 source in several segments ends with a file name
    ///     segment, which is dropped.
    static func decode(
        _ segments: ArraySlice<Substring>, cipher: SourceURLCipher? = nil, rewrite: SourceURLRewrite = SourceURLRewrite(),
        base64IncludesFilename: Bool = false
    ) throws(ProxyError) -> (url: URL, extension: ImageFormat?) {
        guard let first = segments.first, segments.contains(where: { !$0.isEmpty }) else {
            throw .badRequest("missing source URL after the processing options; give \(usage)")
        }
        if first == "plain" {
            return try plain(segments.dropFirst().joined(separator: "/"), rewrite: rewrite)
        }
        if first == "enc" {
            return try encrypted(segments.dropFirst().joined(), cipher: cipher)
        }
        let parts = base64IncludesFilename && segments.count > 1 ? segments.dropLast() : segments
        return try base64(parts.joined(), rewrite: rewrite)
    }

    private static func encrypted(_ text: String, cipher: SourceURLCipher?) throws(ProxyError) -> (url: URL, extension: ImageFormat?) {
        guard let cipher else {
            throw .badRequest("encrypted source 'enc/\(text.prefix(100))' cannot be read: the server has no source URL encryption key (\(ServerSetting.sourceURLEncryptionKey.names))")
        }
        var encoded = Substring(text)
        var format: ImageFormat?
        if let dot = encoded.lastIndex(of: ".") {
            format = try AnyExtension.format(encoded[encoded.index(after: dot)...])
            encoded = encoded[..<dot]
        }
        guard !encoded.isEmpty else {
            throw .badRequest("missing encrypted source after 'enc/'; give enc/<URL-safe base64 of IV + AES-CBC ciphertext>[.<ext>]")
        }
        guard let payload = Base64URL.decode(encoded) else {
            throw .badRequest("encrypted source 'enc/\(encoded.prefix(100))' is not valid URL-safe base64; encode IV + ciphertext with the alphabet A-Z a-z 0-9 - _")
        }
        guard let decrypted = cipher.decrypt(payload) else {
            throw .badRequest("encrypted source 'enc/\(encoded.prefix(100))' cannot be decrypted: encrypt the URL with AES-CBC under the server's key, PKCS #7 padding, and put the 16-byte IV first")
        }
        return (try url(decrypted, shown: "enc/" + encoded), format)
    }

    private static func plain(_ text: String, rewrite: SourceURLRewrite) throws(ProxyError) -> (url: URL, extension: ImageFormat?) {
        var encoded = Substring(text)
        var format: ImageFormat?
        // `@` inside the URL must be escaped as %40, so the last `@` starts the extension,
        // unless what follows it is still a path (then the `@` belongs to the URL).
        if let at = encoded.lastIndex(of: "@"), !encoded[at...].containsByte("/") {
            format = try AnyExtension.format(encoded[encoded.index(after: at)...])
            encoded = encoded[..<at]
        }
        guard let decoded = PercentDecoding.decode(encoded) else {
            throw .badRequest("plain source '\(encoded.prefix(100))' has a malformed percent escape; escape '%' as %25")
        }
        return (try url(decoded, shown: encoded, rewrite: rewrite), format)
    }

    private static func base64(_ text: String, rewrite: SourceURLRewrite) throws(ProxyError) -> (url: URL, extension: ImageFormat?) {
        var encoded = Substring(text)
        var format: ImageFormat?
        if let dot = encoded.lastIndex(of: ".") {
            format = try AnyExtension.format(encoded[encoded.index(after: dot)...])
            encoded = encoded[..<dot]
        }
        guard let bytes = Base64URL.decode(encoded) else {
            throw .badRequest("source '\(encoded.prefix(100))' is not valid URL-safe base64; encode the source URL with the alphabet A-Z a-z 0-9 - _ (or use plain/<percent-encoded URL>)")
        }
        guard let decoded = String(validating: bytes, as: UTF8.self) else {
            throw .badRequest("source '\(encoded.prefix(100))' decodes to bytes that are not UTF-8 text; base64-encode the URL's UTF-8 text")
        }
        return (try url(decoded, shown: encoded, rewrite: rewrite), format)
    }

    /// Checks the decoded text and makes a URL of it, rewritten by `rewrite`; `shown` is what the client sent.
    private static func url(_ decoded: String, shown: Substring, rewrite: SourceURLRewrite = SourceURLRewrite()) throws(ProxyError) -> URL {
        guard !decoded.isEmpty else {
            throw .badRequest("missing source URL: the source decodes to an empty string; give \(usage)")
        }
        // The rewrites see the normalised URL, and the checks and the download the
        // normalised result: no spelling of a path passes a check the download escapes.
        var decoded = SourceURLNormalization.normalized(decoded)
        if !rewrite.isEmpty { decoded = SourceURLNormalization.normalized(rewrite.apply(to: decoded)) }
        // General category Cc (control) is exactly U+0000–U+001F and U+007F–U+009F.
        if decoded.unicodeScalars.contains(where: { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }) {
            throw .badRequest("source '\(shown.prefix(100))' contains control characters; remove them from the source URL")
        }
        let scheme = decoded.prefix(5).lowercased()
        let text = scheme == "s3://" || scheme == "gs://" ? objectURLText(decoded) : decoded
        guard let url = URL(string: text), let scheme = url.scheme, !scheme.isEmpty else {
            throw .badRequest("source '\(decoded.prefix(100))' is not an absolute URL; give a URL with a scheme, e.g. https://example.com/image.jpg")
        }
        let lowered = scheme.lowercased()
        if (lowered == "http" || lowered == "https"), url.host?.isEmpty ?? true {
            throw .badRequest("source '\(decoded.prefix(100))' has no host; give a URL like https://example.com/image.jpg")
        }
        return url
    }
}

extension ProxySource {
    /// `s3://<bucket>/<key>[?<version ID>]` and `gs://<bucket>/<object>[?<generation>]` with
    /// the key and version escaped: an object's name is the source's text as written, as
    /// imgproxy reads it, so a `%` or `#` in it is that character, not an escape or a
    /// fragment. The first `?` starts the version ID or generation.
    static func objectURLText(_ decoded: String) -> String {
        let scheme = decoded.prefix(5).lowercased()
        let rest = decoded.dropFirst(5)
        let question = rest.firstIndex(of: "?")
        let object = rest[..<(question ?? rest.endIndex)]
        var text = scheme + AWSURIEncoding.encode(object, keepingSlashes: true)
        if let question { text += "?" + AWSURIEncoding.encode(rest[rest.index(after: question)...]) }
        return text
    }
}

/// The output format named by a URL's extension.
private enum AnyExtension {
    static let usage = "jpg, png, webp, avif, gif, tiff, heic or jxl"

    static func format(_ text: Substring) throws(ProxyError) -> ImageFormat? {
        guard !text.isEmpty else {
            throw .badRequest("empty extension at the end of the source; remove the trailing separator or name a format: \(usage)")
        }
        return try OptionApplier.outputFormat(text, usage: usage, segment: nil)
    }
}
