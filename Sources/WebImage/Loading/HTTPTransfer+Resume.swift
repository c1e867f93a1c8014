import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

extension HTTPTransfer {
    /// What the attempts of one transfer carry from one to the next for resuming
    /// (``ResumePolicy``): the body a dropped attempt left, and whether the source refused a range.
    struct Resumption {
        /// The body a dropped attempt left, which the next attempt asks the rest of.
        var held: HeldBody?
        /// Set once the source answered a range with a `206` that does not continue the
        /// body or with `416`: later drops of the transfer start over.
        var refused = false
    }

    // MARK: Holding a dropped body

    /// What a dropped `200` leaves for the next attempt: its body so far, when the
    /// downloader may resume it (``ResumePolicy``), else `nil`.
    func heldBody(
        from head: DownloadResponseHead, count: Int, storage: @autoclosure () -> HeldBody.Storage,
        attempt: Attempt, resumption: Resumption
    ) -> HeldBody? {
        let policy = options.resumePolicy ?? config.resumePolicy
        guard attempt.transportFailure, attempt.onlyGET, !resumption.refused, head.statusCode == 200,
              policy.resumes(received: count, declared: head.contentLength),
              Self.acceptsByteRanges(head.headers), let (validator, isEntityTag) = Self.rangeValidator(in: head.headers)
        else { return nil }
        return HeldBody(
            url: head.url, head: head, validator: validator, validatorIsEntityTag: isEntityTag, length: head.contentLength,
            count: count, storage: storage()
        )
    }

    /// Whether a response's `Accept-Ranges` names `bytes`.
    static func acceptsByteRanges(_ headers: HTTPHeaders) -> Bool {
        headers["accept-ranges"].contains { value in
            value.split(separator: ",").contains { $0.trimmingCharacters(in: .whitespaces).lowercased() == "bytes" }
        }
    }

    /// What an `If-Range` may carry for a response: its entity tag when it is strong; its
    /// `Last-Modified` when it has no entity tag at all and the date is at least a second
    /// before the response's `Date` (a file changed within the second it was served could
    /// change again under the same date). `nil` when neither holds.
    static func rangeValidator(in headers: HTTPHeaders) -> (String, isEntityTag: Bool)? {
        if let tag = headers.first(name: "etag")?.trimmingCharacters(in: .whitespaces), !tag.isEmpty {
            return tag.hasPrefix("W/") || tag.hasPrefix("w/") ? nil : (tag, true)
        }
        guard let lastModified = headers.first(name: "last-modified")?.trimmingCharacters(in: .whitespaces),
              let modified = HTTPDate.date(from: lastModified),
              let date = headers.first(name: "date").flatMap({ HTTPDate.date(from: $0.trimmingCharacters(in: .whitespaces)) }),
              date.timeIntervalSince(modified) >= 1
        else { return nil }
        return (lastModified, false)
    }

    /// The request headers that ask for the rest of `held`.
    static func addRangeHeaders(for held: HeldBody, to headers: inout HTTPHeaders) {
        headers.replaceOrAdd(name: "Range", value: "bytes=\(held.count)-")
        headers.replaceOrAdd(name: "If-Range", value: held.validator)
    }

    // MARK: Continuing a held body

    /// Receives a `206` or `416` answering a request for the rest of `held`: a `206` that
    /// continues the body is appended to it, and the whole body is the download's; a `416`
    /// or a `206` that does not continue it drops it, and the transfer starts over on its
    /// next retry. The head is the first `200`'s: the response modifier is not asked again.
    func receiveRest(
        of held: HeldBody, _ response: HTTPClientResponse, from url: URL, attempt: inout Attempt,
        resumption: inout Resumption, deadline: NIODeadline
    ) async throws(ImageError) -> DownloadResponse {
        let head = DownloadResponseHead(url: url, statusCode: Int(response.status.code), headers: response.headers)
        attempt.head = head
        emitReceivedResponse(head)
        if head.statusCode == 416 {
            throw refuseRange(of: held, &resumption, attempt: &attempt, answer: "416 Range Not Satisfiable")
        }
        let value = head.headers.first(name: "content-range")
        guard head.statusCode == 206, let value, let range = ContentRange(value), Self.range(range, of: head, continues: held) else {
            throw refuseRange(of: held, &resumption, attempt: &attempt, answer: "206 with Content-Range '\(value ?? "(none)")'")
        }
        // A range without the whole length (`*`) still says where it ends.
        let length = range.length ?? range.last + 1
        if length > maxBodySize { throw .bodyTooLarge(limit: maxBodySize) }
        var count = held.count
        switch held.storage {
        case .block(let block):
            defer { held.count = count }
            try await fill(block, length: length, received: &count, from: response, attempt: &attempt, deadline: deadline)
        case .buffer:
            // The buffer leaves the held body while it grows, so that appending does not copy it.
            var buffer = held.takeBuffer()
            defer {
                held.count = count
                if let buffer { held.storage = .buffer(buffer) }
            }
            try await accumulate(into: &buffer, received: &count, length: length, from: response, attempt: &attempt, deadline: deadline)
        case .handedOver:
            throw .invalidDownloadOperation("the body held for resuming \(operation.url.absoluteString) was already handed over")
        }
        resumption.held = nil
        var data = held.takeData()
        let finished = held.finishedHead()
        if let decryptor = options.decryptor ?? config.decryptor {
            guard let decrypted = decryptor(data, finished) else {
                throw .badImageData("the decryptor could not decode the \(data.count) downloaded bytes")
            }
            data = decrypted
        }
        return DownloadResponse(data: data, head: finished)
    }

    /// Whether a `206` with `range` and `head` carries the rest of `held`: it starts at the
    /// byte after those held and runs to the end of a body of the same length, its
    /// `Content-Length` (when sent) counts those bytes, and an entity tag (when sent) is the
    /// one held.
    static func range(_ range: ContentRange, of head: DownloadResponseHead, continues held: HeldBody) -> Bool {
        guard range.first == held.count else { return false }
        if let length = held.length {
            guard range.length == length else { return false }
        }
        if let length = range.length, range.last != length - 1 { return false }
        if let declared = head.contentLength, declared != range.last - range.first + 1 { return false }
        if held.validatorIsEntityTag, let tag = head.headers.first(name: "etag")?.trimmingCharacters(in: .whitespaces), tag != held.validator {
            return false
        }
        return true
    }

    /// Drops `held` after the source answered its range with `answer`, so that the next
    /// retry starts over, and returns the error the download fails with when none is left.
    private func refuseRange(of held: HeldBody, _ resumption: inout Resumption, attempt: inout Attempt, answer: String) -> ImageError {
        resumption.held = nil
        resumption.refused = true
        attempt.rangeRefused = true
        return .invalidResponse(
            "resuming \(operation.url.absoluteString) from byte \(held.count) failed: the source answered \(answer), "
                + "which does not continue the body; the download starts over if its retry policy has a retry left"
        )
    }
}
