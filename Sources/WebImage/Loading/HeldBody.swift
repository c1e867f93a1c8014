import Foundation
import NIOCore
import NIOFoundationCompat

/// The body of a `200` whose connection dropped, kept for the next attempt to continue.
/// Made only when a transfer drops; its memory goes back to ``BodyBuffers`` when it is
/// dropped unfinished.
final class HeldBody {
    /// Where the bytes are: the reusable block of a body of declared length, or the
    /// client's buffers of one of unknown length.
    enum Storage {
        case block(BodyBuffers.Block)
        case buffer(ByteBuffer)
        /// Handed over to the finished download's `Data`.
        case handedOver
    }

    /// The URL that answered (after redirects): the resumed request goes there.
    let url: URL
    /// The head of the `200` the body belongs to, after the response modifier: the
    /// finished download's.
    let head: DownloadResponseHead
    /// What `If-Range` carries: a strong entity tag, or the `Last-Modified` date.
    let validator: String
    /// Whether ``validator`` is an entity tag (a `206` that names another one is not
    /// the same body).
    let validatorIsEntityTag: Bool
    /// The whole body's length, when the `200` declared it.
    var length: Int?
    /// The bytes held.
    var count: Int
    var storage: Storage

    init(url: URL, head: DownloadResponseHead, validator: String, validatorIsEntityTag: Bool, length: Int?, count: Int, storage: Storage) {
        self.url = url
        self.head = head
        self.validator = validator
        self.validatorIsEntityTag = validatorIsEntityTag
        self.length = length
        self.count = count
        self.storage = storage
    }

    deinit {
        if case .block(let block) = storage { BodyBuffers.shared.give(block) }
    }

    /// The whole body, handed over without a copy.
    func takeData() -> Data {
        defer { storage = .handedOver }
        switch storage {
        case .block(let block): return BodyBuffers.shared.data(of: block, count: count)
        case .buffer(let buffer): return Data(buffer: buffer, byteTransferStrategy: .copy)
        case .handedOver: return Data()
        }
    }

    /// The buffer of a body of unknown length, taken out of the held body.
    func takeBuffer() -> ByteBuffer? {
        guard case .buffer(let buffer) = storage else { return nil }
        storage = .handedOver
        return buffer
    }

    /// The finished download's head: the first `200`'s, declaring the whole body's length.
    func finishedHead() -> DownloadResponseHead {
        var head = head
        head.headers.remove(name: "transfer-encoding")
        head.headers.replaceOrAdd(name: "Content-Length", value: String(count))
        return head
    }
}
