import Foundation

/// A ThumbHash: a placeholder for an image in about 25 bytes, from which a blurred
/// 32-pixel-wide picture of the image, its average colour and its approximate aspect ratio
/// can be drawn back.
///
/// ThumbHash is Evan Wallace's algorithm (github.com/evanw/thumbhash): a few low-frequency
/// cosine coefficients of the image's luminance, two colour-difference channels and alpha.
/// This type encodes and decodes exactly as its reference JavaScript implementation does,
/// so hashes made here decode in the reference's browser code and the other way round.
///
/// Make one from any decoded image with ``init(image:)``, from RGBA pixels with
/// ``init(rgba:width:height:)``, or from a stored hash with ``init(bytes:)`` or
/// ``init(base64:)``; draw it back with ``image()`` or ``pixels()``.
public struct ThumbHash: Sendable, Hashable, CustomStringConvertible {
    /// The hash, exactly as the reference implementation writes it.
    public let bytes: [UInt8]

    /// What the first bytes of ``bytes`` say.
    let header: ThumbHashHeader

    /// Takes a hash as stored. Throws ``ImageError/badImageData(_:)`` when the bytes are
    /// not a ThumbHash: fewer than its header needs, more than it describes, or a header
    /// that describes no image.
    public init(bytes: [UInt8]) throws(ImageError) {
        header = try ThumbHashHeader(bytes)
        self.bytes = bytes
    }

    /// Parses a hash written in base64, the form the reference implementation documents:
    /// the standard alphabet (`+`, `/`) or the URL-safe one (`-`, `_`), with or without `=`
    /// padding. Throws ``ImageError/badImageData(_:)`` when the text is not base64 or the
    /// bytes are not a ThumbHash.
    public init(base64: String) throws(ImageError) {
        let trimmed = base64.trimmingCharacters(in: .whitespacesAndNewlines)
        let body = trimmed.prefix { $0 != "=" }
        let padding = trimmed.count - body.count
        let standard = String(body.map { $0 == "-" ? "+" : $0 == "_" ? "/" : $0 })
        let alphabet = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
        guard !body.isEmpty, standard.allSatisfy(alphabet.contains), body.count % 4 != 1,
              padding == 0 || (padding <= 2 && trimmed.count % 4 == 0 && trimmed.hasSuffix(String(repeating: "=", count: padding))),
              let data = Data(base64Encoded: standard + String(repeating: "=", count: (4 - body.count % 4) % 4)) else {
            let shown = trimmed.count > 60 ? String(trimmed.prefix(60)) + "…" : trimmed
            throw .badImageData("'\(shown)' is not a base64 ThumbHash: write the hash's bytes in base64, e.g. 1QcSHQRnh493V4dIh4eXh1h4kJUI")
        }
        try self.init(bytes: [UInt8](data))
    }

    /// The hash in standard base64 with padding, as the reference implementation's examples
    /// write it (`Buffer.toString("base64")`).
    public var base64: String { Data(bytes).base64EncodedString() }

    /// The hash in base64 (``base64``).
    public var description: String { base64 }

    /// Whether the hashed image had transparent or translucent pixels.
    public var hasAlpha: Bool { header.hasAlpha }

    /// The image's aspect ratio (width ÷ height) as the hash records it: the ratio of its
    /// luminance coefficient counts, between 1/7 and 7, coarse but enough to reserve space.
    public var approximateAspectRatio: Double { header.approximateAspectRatio }

    /// Two hashes are equal when their bytes are.
    public static func == (lhs: ThumbHash, rhs: ThumbHash) -> Bool { lhs.bytes == rhs.bytes }

    /// Hashes the bytes.
    public func hash(into hasher: inout Hasher) { hasher.combine(bytes) }
}

extension ThumbHash: Codable {
    /// Reads a hash written as a base64 string (``init(base64:)``).
    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        do {
            try self.init(base64: text)
        } catch {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: error.description, underlyingError: error))
        }
    }

    /// Writes the hash as its base64 string (``base64``).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(base64)
    }
}
