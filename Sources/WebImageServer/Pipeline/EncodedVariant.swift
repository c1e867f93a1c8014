import Crypto
import Foundation
import NIOCore
import WebImage

/// One processed image as served: its encoded bytes and what the response headers say about them.
struct EncodedVariant: Sendable {
    /// The encoded image.
    let data: Data
    /// ``data`` in a buffer made once, so that serving it copies nothing.
    let buffer: ByteBuffer
    /// The format of ``data`` (from its bytes).
    let format: ImageFormat
    /// A strong validator: a hash of ``data``, quoted.
    let etag: String
    /// When the variant was made.
    let lastModified: Date
    /// ``lastModified`` as an HTTP date, formatted once for every response that serves it.
    let lastModifiedText: String

    init(data: Data, etag: String? = nil, lastModified: Date = Date()) {
        self.data = data
        self.buffer = ByteBuffer(bytes: data)
        self.format = ImageFormat(data: data)
        self.etag = etag ?? Self.etag(for: data)
        self.lastModified = lastModified
        self.lastModifiedText = HTTPDate.string(from: lastModified)
    }

    /// `"<first 16 bytes of SHA-256, hex>"`.
    static func etag(for data: Data) -> String {
        let digest = SHA256.hash(data: data)
        return "\"" + digest.prefix(16).map { String(format: "%02x", $0) }.joined() + "\""
    }
}
