import Foundation
import WebImageLocking

/// A source for the test origin that answers `Range` and `If-Range` as a server that
/// supports byte ranges does, can cut any of its responses short, and records the range
/// headers of every request.
///
///     let source = TestOriginRangedSource([.init(body: bytes, headers: [("Accept-Ranges", "bytes"), ("ETag", "\"v1\"")])], cuts: [40_000])
///     origin.register("/big.bin", source)
///     ... load origin.url("/big.bin") ...
///     #expect(source.rangeHeaders == [nil, "bytes=40000-"])
///
/// Request *n* (from 1) is served representation *n* (the last one for every later
/// request), and cut after `cuts[n - 1]` body bytes (connection closed) when that is not `nil`.
///
/// A client may not read every byte sent before a closed connection fails its response. To
/// know exactly how many bytes it held, a source made with `holdsCuts` waits at each cut until
/// ``bodyBytesSeen(_:)`` (called from the client's progress) says the client has every byte
/// up to it, and only then closes the connection.
package final class TestOriginRangedSource: Sendable {
    /// One version of the body and the headers it is served with (validators, `Accept-Ranges`).
    package struct Representation: Sendable {
        package var body: Data
        package var headers: [(String, String)]

        package init(body: Data, headers: [(String, String)]) {
            self.body = body
            self.headers = headers
        }

        func header(_ name: String) -> String? {
            headers.first { $0.0.caseInsensitiveCompare(name) == .orderedSame }?.1
        }
    }

    /// How the source answers a request with `Range: bytes=<start>-` whose `If-Range` (if
    /// any) matches the representation served.
    package enum RangeAnswer: Sendable, Equatable {
        /// `206` with the rest from `start`, and `Content-Range: bytes <start>-<last>/<length>`
        /// (`416` when `start` is past the end).
        case honour
        /// `200` with the whole body, as a server that ignores ranges.
        case ignore
        /// `206` with the body from `start` instead of the byte asked for.
        case wrongStart(Int)
        /// `416 Range Not Satisfiable`.
        case unsatisfiable
    }

    private let representations: [Representation]
    private let cuts: [Int?]
    private let answer: RangeAnswer
    private let chunked: Bool
    private let holdsCuts: Bool
    private let resetsCuts: Bool
    private let requests = Locked<[TestOriginRequest]>([])
    /// The cuts waiting for the client, by the offset in the whole body where each one is.
    private let heldCuts = Locked<[(offset: Int, gate: TestOriginGate)]>([])

    /// A source serving `representations` in turn, cutting response *n* after `cuts[n - 1]`
    /// body bytes, answering ranges as `answer` says; `chunked` frames bodies with chunked
    /// transfer encoding (no `Content-Length`); `holdsCuts` holds each cut until
    /// ``bodyBytesSeen(_:)`` reaches it; `resetsCuts` ends each cut with a reset (RST)
    /// instead of a close (FIN).
    package init(
        _ representations: [Representation], cuts: [Int?] = [], answer: RangeAnswer = .honour, chunked: Bool = false,
        holdsCuts: Bool = false, resetsCuts: Bool = false
    ) {
        precondition(!representations.isEmpty)
        self.representations = representations
        self.cuts = cuts
        self.answer = answer
        self.chunked = chunked
        self.holdsCuts = holdsCuts
        self.resetsCuts = resetsCuts
    }

    /// Tells the source that the client holds the first `count` bytes of the body: every
    /// held cut at or before that offset closes its connection.
    package func bodyBytesSeen(_ count: Int) {
        let due = heldCuts.withLock { cuts -> [TestOriginGate] in
            defer { cuts.removeAll { $0.offset <= count } }
            return cuts.filter { $0.offset <= count }.map(\.gate)
        }
        for gate in due { gate.open() }
    }

    /// Requests answered so far.
    package var requestCount: Int { requests.withLock { $0.count } }

    /// The `Range` header of each request, in order (`nil` for a request without one).
    package var rangeHeaders: [String?] { requests.withLock { $0.map { $0.header("Range") } } }

    /// The `If-Range` header of each request, in order (`nil` for a request without one).
    package var ifRangeHeaders: [String?] { requests.withLock { $0.map { $0.header("If-Range") } } }

    /// The response to `request`.
    package func response(for request: TestOriginRequest) -> TestOriginResponse {
        let number = requests.withLock { requests in
            requests.append(request)
            return requests.count
        }
        let representation = representations[min(number, representations.count) - 1]
        let body = representation.body
        var response: TestOriginResponse
        // Where the response's body starts in the whole body.
        var first = 0
        if let start = Self.rangeStart(request.header("Range")), answer != .ignore,
           Self.ifRange(request.header("If-Range"), matches: representation) {
            switch answer {
            case .honour where start < body.count, .wrongStart where start < body.count:
                first = if case .wrongStart(let wrong) = answer { wrong } else { start }
                response = .data(Data(body[(body.startIndex + first)...]), status: 206, headers: representation.headers)
                    .withHeader("Content-Range", "bytes \(first)-\(body.count - 1)/\(body.count)")
            default:
                response = .status(416, headers: [("Content-Range", "bytes */\(body.count)")])
            }
        } else {
            response = .data(body, headers: representation.headers)
        }
        let cut = number <= cuts.count ? cuts[number - 1] : nil
        if chunked || cut != nil {
            response = response.streamed(chunkSize: 16 * 1024, interval: .zero, encoding: chunked ? .chunked : .contentLength)
        }
        if let cut {
            if holdsCuts {
                let gate = TestOriginGate()
                heldCuts.withLock { $0.append((first + cut, gate)) }
                response = response.pausing(afterBodyBytes: cut, until: gate)
            }
            response = resetsCuts ? response.resetting(afterBodyBytes: cut) : response.dropping(afterBodyBytes: cut)
        }
        return response
    }

    /// The first byte of `Range: bytes=<start>-`, or `nil` for any other value.
    private static func rangeStart(_ value: String?) -> Int? {
        guard let value, value.hasPrefix("bytes="), value.hasSuffix("-") else { return nil }
        return Int(value.dropFirst(6).dropLast())
    }

    /// Whether an `If-Range` (none, an entity tag or a date) lets the range through: it is
    /// absent, or equals the representation's strong `ETag` or its `Last-Modified`.
    private static func ifRange(_ value: String?, matches representation: Representation) -> Bool {
        guard let value else { return true }
        if let tag = representation.header("ETag"), !tag.hasPrefix("W/"), tag == value { return true }
        return representation.header("Last-Modified") == value
    }
}

extension TestOrigin {
    /// Serves `source` for `path` (matched without the query string); replaces an earlier route.
    package func register(_ path: String, _ source: TestOriginRangedSource) {
        register(path) { source.response(for: $0) }
    }
}
