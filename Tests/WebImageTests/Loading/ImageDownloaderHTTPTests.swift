import Foundation
import NIOHTTP1
import Testing
@testable import WebImage
import WebImageTestSupport

// The downloader's HTTP behaviour: modifiers, credentials, timeouts, redirects, size limits,
// cookies, TLS and events.
extension ImageDownloaderTests {
    @Test("D10 request and response modifiers and the decryptor")
    func D10_modifiersAndDecryptor() async throws {
        try await withDownloader { origin, downloader in
            origin.register("/a.png", .image(Self.png))
            origin.register("/b64", .text(Self.png.base64EncodedString()))

            var options = DownloadOptions()
            options.requestModifier = { request in
                var request = request
                request.headers.add(name: "X-Signed", value: "42")
                request.url = URL(string: request.url.absoluteString + "?sig=42")!
                return request
            }
            _ = try await downloader.load(origin.url("/a.png"), options: options)
            #expect(origin.lastRequest("/a.png")?.header("x-signed") == "42")
            #expect(origin.lastRequest("/a.png")?.query == "sig=42")

            var cancelling = DownloadOptions()
            cancelling.requestModifier = { _ in nil }
            await #expect(throws: ImageError.self) { try await downloader.load(origin.url("/a.png?no"), options: cancelling) }
            do {
                _ = try await downloader.load(origin.url("/a.png?no2"), options: cancelling)
            } catch let error as ImageError {
                guard case .invalidDownloadOperation = error else { Issue.record("got \(error)"); return }
            }

            var rejecting = DownloadOptions()
            rejecting.responseModifier = { _ in nil }
            do {
                _ = try await downloader.load(origin.url("/a.png?reject"), options: rejecting)
                Issue.record("a rejected response must fail")
            } catch let error as ImageError {
                guard case .invalidResponse = error else { Issue.record("got \(error)"); return }
            }

            var decrypting = DownloadOptions()
            decrypting.decryptor = { data, _ in Data(base64Encoded: data) }
            #expect(try await downloader.load(origin.url("/b64"), options: decrypting).data == Self.png)
            var failing = DownloadOptions()
            failing.decryptor = { _, _ in nil }
            do {
                _ = try await downloader.load(origin.url("/b64?fail"), options: failing)
                Issue.record("a failed decryption must fail")
            } catch let error as ImageError {
                guard case .badImageData = error else { Issue.record("got \(error)"); return }
            }
        }
    }

    @Test("D10 a response modifier can turn an error status into success")
    func D10_responseModifierChangesStatus() async throws {
        try await withDownloader { origin, downloader in
            origin.register("/teapot.png", .image(Self.png, status: 418))
            var options = DownloadOptions()
            options.responseModifier = { head in
                var head = head
                head.statusCode = 200
                head.headers.replaceOrAdd(name: "X-Fixed", value: "1")
                return head
            }
            let response = try await downloader.load(origin.url("/teapot.png"), options: options)
            #expect(response.head.statusCode == 200)
            #expect(response.head.headers.first(name: "x-fixed") == "1")
            await #expect(throws: ImageError.invalidStatusCode(418)) { try await downloader.load(origin.url("/teapot.png?plain")) }
        }
    }

    @Test("D11 basic-auth credentials are sent when configured")
    func D11_credentials() async throws {
        let expected = "Basic " + Data("ada:secret".utf8).base64EncodedString()
        let handler: @Sendable (TestOriginRequest) -> TestOriginResponse = { request in
            request.header("authorization") == expected ? .image(Self.png) : .status(401)
        }
        try await withDownloader { origin, downloader in
            origin.register("/private.png", handler: handler)
            await #expect(throws: ImageError.invalidStatusCode(401)) { try await downloader.load(origin.url("/private.png")) }
        }
        try await withDownloader(configure: { $0.credentials = .init(user: "ada", password: "secret") }) { origin, downloader in
            origin.register("/private.png", handler: handler)
            let response = try await downloader.load(origin.url("/private.png"))
            #expect(response.data == Self.png)
        }
    }

    @Test("D12 idle timeout, steady slow transfers, and the total deadline")
    func D12_timeouts() async throws {
        // Each limit is shown where a slow machine can only delay the outcome, never change
        // it: a stalled origin sends nothing however fast the machine is; a steady one sends
        // a chunk every 100 ms, 50 times more often than its idle timeout allows; a stream
        // of 20 s ends at a 2 s deadline.
        try await withDownloader(configure: { $0.idleTimeout = .seconds(1) }) { origin, downloader in
            origin.register("/stall", .stall)
            origin.register("/stall-mid", TestOriginResponse.data(Data(repeating: 1, count: 10_000)).stalling(afterBodyBytes: 1_000))
            for path in ["/stall", "/stall-mid"] {
                do {
                    _ = try await downloader.load(origin.url(path))
                    Issue.record("\(path) must time out")
                } catch let error as ImageError {
                    guard case .timedOut = error else { Issue.record("\(path): got \(error)"); continue }
                }
            }
        }
        try await withDownloader(configure: { $0.idleTimeout = .seconds(5) }) { origin, downloader in
            // 60 chunks, one every 100 ms: about 6 s, longer than the idle timeout, never idle.
            let body = Data(repeating: 1, count: 60_000)
            origin.register("/steady", TestOriginResponse.data(body).streamed(chunkSize: 1_000, interval: .milliseconds(100)))
            let steady = try await downloader.load(origin.url("/steady"))
            #expect(steady.data == body)
        }
        try await withDownloader(configure: { $0.idleTimeout = .seconds(5); $0.totalTimeout = .seconds(2) }) { origin, downloader in
            // 200 chunks, one every 100 ms: about 20 s, cut by the 2 s deadline.
            origin.register("/long", TestOriginResponse.data(Data(repeating: 2, count: 200_000)).streamed(chunkSize: 1_000, interval: .milliseconds(100)))
            do {
                _ = try await downloader.load(origin.url("/long"))
                Issue.record("the deadline must cut a 20 s transfer")
            } catch let error as ImageError {
                guard case .timedOut = error else { Issue.record("got \(error)"); return }
            }
        }
    }

    @Test("D13 redirects are followed up to the limit; a loop fails cleanly")
    func D13_redirects() async throws {
        try await withDownloader(configure: { $0.maxRedirects = 3 }) { origin, downloader in
            origin.register("/r1", .redirect(to: "/r2", status: 301))
            origin.register("/r2", .redirect(to: origin.url("/r3").absoluteString, status: 307))
            origin.register("/r3", .redirect(to: "final.png", status: 308))
            origin.register("/final.png", .image(Self.png))
            let response = try await downloader.load(origin.url("/r1"))
            #expect(response.data == Self.png)
            #expect(response.head.url.path == "/final.png")

            origin.register("/loop-a", .redirect(to: "/loop-b"))
            origin.register("/loop-b", .redirect(to: "/loop-a"))
            do {
                _ = try await downloader.load(origin.url("/loop-a"))
                Issue.record("a loop must fail")
            } catch let error as ImageError {
                guard case .invalidResponse(let reason) = error, reason.contains("loop") else { Issue.record("got \(error)"); return }
            }

            origin.register("/far", .redirect(to: "/r1"))
            do {
                _ = try await downloader.load(origin.url("/far"))
                Issue.record("four redirects exceed the limit of three")
            } catch let error as ImageError {
                guard case .invalidResponse(let reason) = error, reason.contains("too many redirects") else { Issue.record("got \(error)"); return }
            }
        }
    }

    @Test("D14 a body over the maximum fails without reading it all; a lying Content-Length fails cleanly")
    func D14_bodyLimits() async throws {
        try await withDownloader(configure: { $0.maxBodySize = 10_000 }) { origin, downloader in
            origin.register("/declared", .data(Data(repeating: 1, count: 50_000)))
            // 2 MB at 200 KB/s: the client must hang up within the 10 s the origin takes to send it
            // (a shorter body could end up whole in the loopback socket buffers on a loaded machine).
            origin.register("/chunked", TestOriginResponse.data(Data(repeating: 1, count: 2_000_000)).chunked(chunkSize: 2_000).streamed(chunkSize: 2_000, interval: .milliseconds(10)))
            origin.register("/short", .lyingContentLength(declared: 5_000, body: Data(repeating: 3, count: 1_000)))
            await #expect(throws: ImageError.bodyTooLarge(limit: 10_000)) { try await downloader.load(origin.url("/declared")) }
            await #expect(throws: ImageError.bodyTooLarge(limit: 10_000)) { try await downloader.load(origin.url("/chunked")) }
            #expect(await origin.waitForAbort("/chunked"), "the transfer stopped long before its 2 MB")
            await #expect(throws: ImageError.self) { try await downloader.load(origin.url("/short")) }
        }
    }

    @Test("D15 an empty body is bad image data")
    func D15_emptyBody() async throws {
        try await withDownloader { origin, downloader in
            origin.register("/empty.png", .image(Data()))
            do {
                _ = try await downloader.load(origin.url("/empty.png"))
                Issue.record("an empty body must fail")
            } catch let error as ImageError {
                guard case .badImageData = error else { Issue.record("got \(error)"); return }
            }
        }
    }

    @Test("D16 cookies are kept only with handleCookies")
    func D16_cookies() async throws {
        try await withDownloader { origin, downloader in
            origin.register("/login.png", .image(Self.png, headers: [("Set-Cookie", "sid=abc123; Path=/")]))
            origin.register("/me.png", .image(Self.png))
            var cookies = DownloadOptions()
            cookies.handleCookies = true
            _ = try await downloader.load(origin.url("/login.png"), options: cookies)
            _ = try await downloader.load(origin.url("/me.png"), options: cookies)
            #expect(origin.lastRequest("/me.png")?.header("cookie") == "sid=abc123")
            _ = try await downloader.load(origin.url("/me.png?plain"))
            #expect(origin.lastRequest("/me.png")?.header("cookie") == nil)
        }
        try await withDownloader { origin, downloader in
            origin.register("/login.png", .image(Self.png, headers: [("Set-Cookie", "sid=abc123; Path=/")]))
            origin.register("/me.png", .image(Self.png))
            _ = try await downloader.load(origin.url("/login.png"))
            var cookies = DownloadOptions()
            cookies.handleCookies = true
            _ = try await downloader.load(origin.url("/me.png"), options: cookies)
            #expect(origin.lastRequest("/me.png")?.header("cookie") == nil, "cookies set without handleCookies are not stored")
        }
    }

    @Test("D17 a self-signed HTTPS origin fails without allowInvalidSSLCertificates and loads with it")
    func D17_invalidCertificates() async throws {
        let certificate = try SelfSignedCertificate()
        let origin = try await TestOrigin.start(tls: certificate.serverConfiguration)
        var config = DownloaderConfig()
        // A TLS handshake under the thread sanitizer on 2 cores can take longer than the
        // default 10 s to connect.
        config.connectTimeout = .seconds(120)
        let downloader = ImageDownloader(config: config)
        origin.register("/secure.png", .image(Self.png))
        #expect(origin.baseURL.scheme == "https")

        do {
            _ = try await downloader.load(origin.url("/secure.png"))
            Issue.record("an untrusted certificate must be refused")
        } catch {
            guard case .network = error else { Issue.record("got \(error)"); return }
        }
        var insecure = DownloadOptions()
        insecure.allowInvalidSSLCertificates = true
        let response = try await downloader.load(origin.url("/secure.png"), options: insecure)
        #expect(response.data == Self.png)
        #expect(origin.requestCount("/secure.png") == 1, "the refused handshake never reached HTTP")
        await downloader.shutdown()
        try await origin.shutdown()
    }

    @Test("D18 events: started, response, stopped, finished; a failure stops without finishing")
    func D18_events() async throws {
        try await withDownloader { origin, downloader in
            origin.register("/ok.png", .image(Self.png))
            origin.register("/gone.png", .status(410))
            let events = Recorder<ImageEvent>()
            let observation = downloader.events.observe { events.append($0) }
            defer { downloader.events.removeObserver(observation) }
            _ = try await downloader.load(origin.url("/ok.png"))
            let names = events.values.map(Self.name)
            #expect(names == ["started", "response", "stopped", "finished"])
            _ = try? await downloader.load(origin.url("/gone.png"))
            #expect(events.values.dropFirst(4).map(Self.name) == ["started", "response", "stopped"])

            var stream = downloader.events.stream().makeAsyncIterator()
            _ = try await downloader.load(origin.url("/ok.png?again"))
            let first = await stream.next()
            #expect(first.map(Self.name) == "started")
        }
    }

    static func name(_ event: ImageEvent) -> String {
        switch event {
        case .started: "started"
        case .receivedResponse: "response"
        case .retrying: "retrying"
        case .resuming: "resuming"
        case .stopped: "stopped"
        case .finished: "finished"
        case .variantMade: "variantMade"
        case .backgroundWorkExpired: "backgroundWorkExpired"
        case .sourceFailed: "sourceFailed"
        }
    }
}
