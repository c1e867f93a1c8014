import Foundation

/// What the test origin does with a request: a normal reply (any status, headers, body), optionally
/// streamed slowly, cut short, or lying about its length; a delay first; or no reply at all.
///
/// Build one with the static helpers and refine it with the modifiers, e.g.
/// `.image(png).withHeader("ETag", "\"v1\"").streamed(chunkSize: 100, interval: .milliseconds(20))`.
package struct TestOriginResponse: Sendable {
    /// How a reply's body is framed on the wire.
    package enum TransferEncoding: Sendable, Equatable {
        /// A `Content-Length` header (the default).
        case contentLength
        /// `Transfer-Encoding: chunked`.
        case chunked
    }

    /// What happens after a reply was cut short by `stalling`/`dropping`/`resetting(afterBodyBytes:)`.
    package enum CutEnding: Sendable, Equatable {
        /// Keep the connection open and send nothing more.
        case stall
        /// Close the connection (FIN).
        case close
        /// Reset the connection (RST).
        case reset
    }

    /// A normal HTTP reply and how it is sent.
    package struct Reply: Sendable {
        /// The status code (any value; 1xx, 204 and 304 are sent without a body or framing header).
        package var status: Int
        /// Headers in the order they are sent; a name may appear several times. A `Content-Length`
        /// or `Transfer-Encoding` given here replaces the one the origin would add.
        package var headers: [(String, String)]
        /// The body.
        package var body: Data
        /// How the body is framed.
        package var transferEncoding: TransferEncoding = .contentLength
        /// A `Content-Length` to declare instead of the real one (a lie). When it differs from the
        /// body's size the reply carries `Connection: close` and the origin closes the connection
        /// after sending the body.
        package var declaredContentLength: Int?
        /// Send the body in pieces of this many bytes (nil: in one piece).
        package var chunkSize: Int?
        /// The pause between two pieces of the body.
        package var chunkInterval: Duration = .zero
        /// Send only this many body bytes, then end as `cutEnding` says (nil: send the whole body).
        package var cutAfterBodyBytes: Int?
        /// What happens after a cut.
        package var cutEnding: CutEnding = .stall
        /// Send `Connection: close` and close the connection after the reply.
        package var closeConnection = false
        /// After this many body bytes (0: after the head), wait until the gate opens.
        package var pause: (afterBodyBytes: Int, gate: TestOriginGate)?

        /// The value of the first header called `name` (case-insensitive).
        package func header(_ name: String) -> String? {
            headers.first { $0.0.caseInsensitiveCompare(name) == .orderedSame }?.1
        }
    }

    /// The behaviour.
    package indirect enum Behavior: Sendable {
        /// Answer with a reply.
        case reply(Reply)
        /// Wait, then behave like the inner response.
        case delayed(Duration, TestOriginResponse)
        /// Accept the request and never answer; the connection stays open until the client closes it
        /// or the origin shuts down.
        case stall
        /// Close the connection without answering (FIN).
        case drop
        /// Reset the connection without answering (RST).
        case reset
        /// Wait until the gate opens, then behave like the inner response.
        case gated(TestOriginGate, TestOriginResponse)
        /// A 200 with a chunked body that never ends: `piece` again and again until the
        /// client closes the connection.
        case endless(contentType: String, piece: Data)
    }

    package var behavior: Behavior

    package init(behavior: Behavior) {
        self.behavior = behavior
    }

    /// A reply with any status, headers and body; `contentType` adds a `Content-Type` header.
    package init(status: Int = 200, headers: [(String, String)] = [], body: Data = Data(), contentType: String? = nil) {
        var all = headers
        if let contentType {
            all.insert(("Content-Type", contentType), at: 0)
        }
        self.behavior = .reply(Reply(status: status, headers: all, body: body))
    }

    // MARK: Replies

    /// 200 (or `status`) with the image bytes and their content type.
    package static func image(
        _ data: Data, contentType: String = "image/png", status: Int = 200, headers: [(String, String)] = []
    ) -> TestOriginResponse {
        TestOriginResponse(status: status, headers: headers, body: data, contentType: contentType)
    }

    /// Any bytes with any (or no) content type.
    package static func data(
        _ data: Data, contentType: String? = "application/octet-stream", status: Int = 200,
        headers: [(String, String)] = []
    ) -> TestOriginResponse {
        TestOriginResponse(status: status, headers: headers, body: data, contentType: contentType)
    }

    /// A UTF-8 text body.
    package static func text(
        _ text: String, status: Int = 200, contentType: String = "text/plain; charset=utf-8",
        headers: [(String, String)] = []
    ) -> TestOriginResponse {
        TestOriginResponse(status: status, headers: headers, body: Data(text.utf8), contentType: contentType)
    }

    /// An HTML page.
    package static func html(_ html: String, status: Int = 200, headers: [(String, String)] = []) -> TestOriginResponse {
        text(html, status: status, contentType: "text/html; charset=utf-8", headers: headers)
    }

    /// A status with an empty body.
    package static func status(_ code: Int, headers: [(String, String)] = []) -> TestOriginResponse {
        TestOriginResponse(status: code, headers: headers)
    }

    /// A redirect (301, 302, 303, 307 or 308) to `location`, relative ("/b.png") or absolute.
    package static func redirect(to location: String, status: Int = 302, headers: [(String, String)] = []) -> TestOriginResponse {
        TestOriginResponse(status: status, headers: [("Location", location)] + headers)
    }

    /// 304 Not Modified, with optional validator headers.
    package static func notModified(headers: [(String, String)] = []) -> TestOriginResponse {
        TestOriginResponse(status: 304, headers: headers)
    }

    /// Declares `declared` bytes in Content-Length but sends `body` (more or fewer bytes), with
    /// `Connection: close`, then closes the connection.
    package static func lyingContentLength(
        declared: Int, body: Data, contentType: String? = "application/octet-stream", status: Int = 200
    ) -> TestOriginResponse {
        TestOriginResponse(status: status, body: body, contentType: contentType).declaringContentLength(declared)
    }

    // MARK: No reply

    /// Accept the request and never answer (the connection stays open until the client closes it
    /// or the origin shuts down). Counted as aborted when the client closes.
    package static let stall = TestOriginResponse(behavior: .stall)

    /// Close the connection without any response.
    package static let drop = TestOriginResponse(behavior: .drop)

    /// Reset the connection (TCP RST) without any response.
    package static let reset = TestOriginResponse(behavior: .reset)

    /// A 200 whose chunked body never ends: `piece` (by default 64 KB of zeros) again and
    /// again until the client closes the connection.
    package static func endless(contentType: String = "image/jpeg", piece: Data = Data(count: 64 * 1024)) -> TestOriginResponse {
        TestOriginResponse(behavior: .endless(contentType: contentType, piece: piece))
    }

    // MARK: Timing and cutting

    /// Wait `seconds`, then behave like `response`.
    package static func delayed(_ seconds: Double, then response: TestOriginResponse) -> TestOriginResponse {
        TestOriginResponse(behavior: .delayed(.seconds(seconds), response))
    }

    /// Wait `delay`, then behave like `response`.
    package static func delayed(_ delay: Duration, then response: TestOriginResponse) -> TestOriginResponse {
        TestOriginResponse(behavior: .delayed(delay, response))
    }

    /// Sends the head (with the full Content-Length) and the first `bodyBytes` body bytes of
    /// `response`, then stalls.
    package static func stall(afterBodyBytes bodyBytes: Int, of response: TestOriginResponse) -> TestOriginResponse {
        response.stalling(afterBodyBytes: bodyBytes)
    }

    /// Sends the head (with the full Content-Length) and the first `bodyBytes` body bytes of
    /// `response`, then closes the connection.
    package static func drop(afterBodyBytes bodyBytes: Int, of response: TestOriginResponse) -> TestOriginResponse {
        response.dropping(afterBodyBytes: bodyBytes)
    }

    /// Wait until `gate` opens, then behave like `response`.
    package static func gated(_ gate: TestOriginGate, then response: TestOriginResponse) -> TestOriginResponse {
        TestOriginResponse(behavior: .gated(gate, response))
    }

    /// Sends the head and the first `bodyBytes` body bytes (0: the head only), then waits until
    /// `gate` opens and sends the rest.
    package func pausing(afterBodyBytes bodyBytes: Int, until gate: TestOriginGate) -> TestOriginResponse {
        mapReply { $0.pause = (max(0, bodyBytes), gate) }
    }

    /// This response after waiting `seconds`.
    package func delayed(by seconds: Double) -> TestOriginResponse {
        .delayed(seconds, then: self)
    }

    /// Sends the head and the first `bodyBytes` body bytes, then stalls.
    package func stalling(afterBodyBytes bodyBytes: Int) -> TestOriginResponse {
        mapReply {
            $0.cutAfterBodyBytes = max(0, bodyBytes)
            $0.cutEnding = .stall
        }
    }

    /// Sends the head and the first `bodyBytes` body bytes, then closes the connection (FIN).
    package func dropping(afterBodyBytes bodyBytes: Int) -> TestOriginResponse {
        mapReply {
            $0.cutAfterBodyBytes = max(0, bodyBytes)
            $0.cutEnding = .close
        }
    }

    /// Sends the head and the first `bodyBytes` body bytes, then resets the connection (RST).
    package func resetting(afterBodyBytes bodyBytes: Int) -> TestOriginResponse {
        mapReply {
            $0.cutAfterBodyBytes = max(0, bodyBytes)
            $0.cutEnding = .reset
        }
    }

    /// Declares `length` in Content-Length whatever the body's real size; when the two differ the
    /// reply carries `Connection: close` and the origin closes the connection after the body.
    package func declaringContentLength(_ length: Int) -> TestOriginResponse {
        mapReply {
            $0.declaredContentLength = length
            $0.transferEncoding = .contentLength
        }
    }

    /// Sends the body in pieces of `chunkSize` bytes, one every `interval` (the first with the head),
    /// framed by Content-Length or chunked transfer encoding.
    package func streamed(
        chunkSize: Int, interval: Duration, encoding: TransferEncoding = .contentLength
    ) -> TestOriginResponse {
        mapReply {
            $0.chunkSize = max(1, chunkSize)
            $0.chunkInterval = interval
            $0.transferEncoding = encoding
        }
    }

    /// Uses chunked transfer encoding (pieces of `chunkSize` bytes, all sent at once; nil: one chunk).
    package func chunked(chunkSize: Int? = nil) -> TestOriginResponse {
        mapReply {
            $0.transferEncoding = .chunked
            if let chunkSize { $0.chunkSize = max(1, chunkSize) }
        }
    }

    /// Appends a header (several with one name are allowed).
    package func withHeader(_ name: String, _ value: String) -> TestOriginResponse {
        mapReply { $0.headers.append((name, value)) }
    }

    /// Appends headers.
    package func withHeaders(_ headers: [(String, String)]) -> TestOriginResponse {
        mapReply { $0.headers.append(contentsOf: headers) }
    }

    /// Removes every header called `name` (case-insensitive) and appends `name: value`.
    package func settingHeader(_ name: String, _ value: String) -> TestOriginResponse {
        mapReply {
            $0.headers.removeAll { $0.0.caseInsensitiveCompare(name) == .orderedSame }
            $0.headers.append((name, value))
        }
    }

    /// Sends `Connection: close` and closes the connection after the reply.
    package func closingConnection() -> TestOriginResponse {
        mapReply { $0.closeConnection = true }
    }

    /// Applies `change` to the reply (inside a delay or gate too); stall, drop and reset are unchanged.
    package func mapReply(_ change: (inout Reply) -> Void) -> TestOriginResponse {
        switch behavior {
        case .reply(var reply):
            change(&reply)
            return TestOriginResponse(behavior: .reply(reply))
        case .delayed(let delay, let inner):
            return TestOriginResponse(behavior: .delayed(delay, inner.mapReply(change)))
        case .gated(let gate, let inner):
            return TestOriginResponse(behavior: .gated(gate, inner.mapReply(change)))
        case .stall, .drop, .reset, .endless:
            return self
        }
    }
}
