import Foundation
import NIOHTTP1
import Testing
@testable import WebImage
import WebImageTestSupport

@Suite("ImageDownloader")
struct ImageDownloaderTests {
    static let png: Data = try! TestImages.encode(try! TestImages.quadrants(width: 40, height: 30), as: .png)

    func withDownloader(
        configure: (inout DownloaderConfig) -> Void = { _ in },
        _ body: (TestOrigin, ImageDownloader) async throws -> Void
    ) async throws {
        try await withOriginAndDownloader(configure: configure, body)
    }

    @Test("D1 default headers prefer images and name WebImage; headers can be set and removed")
    func D1_defaultHeaders() async throws {
        try await withDownloader { origin, downloader in
            origin.register("/a.png", .image(Self.png))
            _ = try await downloader.load(origin.url("/a.png"))
            let request = try #require(origin.lastRequest("/a.png"))
            #expect(request.header("accept")?.hasPrefix("image/avif,image/webp") == true)
            #expect(request.header("user-agent")?.contains("WebImage/\(WebImageVersion.current)") == true)

            downloader.setValue("yes", forHTTPHeaderField: "X-Test")
            _ = try await downloader.load(origin.url("/a.png?2"))
            #expect(origin.lastRequest("/a.png")?.header("x-test") == "yes")
            downloader.setValue(nil, forHTTPHeaderField: "X-Test")
            _ = try await downloader.load(origin.url("/a.png?3"))
            #expect(origin.lastRequest("/a.png")?.header("x-test") == nil)
        }
    }

    @Test("D2 200 staggered loads of one URL make one origin request")
    func D2_coalescing() async throws {
        try await withDownloader { origin, downloader in
            // Callers arrive over ~200 ms; the answer comes long after the last one joined.
            origin.register("/one.png", .delayed(.seconds(3), then: .image(Self.png)))
            let url = origin.url("/one.png")
            let results = await withTaskGroup(of: Data?.self) { group in
                for index in 0..<200 {
                    group.addTask {
                        try? await Task.sleep(for: .milliseconds(index))
                        return try? await downloader.load(url).data
                    }
                }
                var all: [Data?] = []
                for await result in group { all.append(result) }
                return all
            }
            #expect(results.count == 200)
            #expect(results.allSatisfy { $0 == Self.png })
            #expect(origin.requestCount("/one.png") == 1)
        }
    }

    @Test("coalesced callers complete in the order they joined; only identical transfers coalesce")
    func coalescingOrderAndKeys() async throws {
        try await withDownloader { origin, downloader in
            let gate = TestOriginGate()
            origin.register("/joined.png", .gated(gate, then: .image(Self.png)))
            let url = origin.url("/joined.png")
            let order = Recorder<String>()
            let tokens = (0..<5).compactMap { caller in
                downloader.download(url) { result in
                    if case .failure(.cancelled) = result { order.append("\(caller) cancelled") } else { order.append("\(caller)") }
                }
            }
            #expect(await gate.waitForArrivals(1))
            tokens[2].cancel()
            tokens[2].cancel()
            gate.open()
            #expect(await order.wait(for: 5))
            #expect(order.values == ["2 cancelled", "0", "1", "3", "4"], "a caller leaving from the middle keeps the others' order")
            #expect(origin.requestCount("/joined.png") == 1)

            // cancelAllDownloads ends every caller of every transfer, in join order, and the transfers.
            origin.register("/stall-a.png", .stall)
            origin.register("/stall-b.png", .stall)
            let ends = Recorder<String>()
            for caller in 0..<3 {
                downloader.download(origin.url("/stall-a.png")) { result in
                    if case .failure(.cancelled) = result { ends.append("a\(caller)") }
                }
            }
            downloader.download(origin.url("/stall-b.png")) { result in
                if case .failure(.cancelled) = result { ends.append("b") }
            }
            #expect(await origin.waitForRequests("/stall-a.png"))
            #expect(await origin.waitForRequests("/stall-b.png"))
            downloader.cancelAllDownloads()
            #expect(await ends.wait(for: 4))
            #expect(ends.values.filter { $0.hasPrefix("a") } == ["a0", "a1", "a2"])
            #expect(await origin.waitForAbort("/stall-a.png"))
            #expect(await eventually { downloader.currentDownloadCount == 0 })
        }

        let plain = URL(string: "https://example.com/a.png")!
        #expect(DownloadOptions().coalescingKey(for: plain) == plain.absoluteString)
        var insecure = DownloadOptions()
        insecure.allowInvalidSSLCertificates = true
        var cookies = DownloadOptions()
        cookies.handleCookies = true
        var revalidating = DownloadOptions()
        revalidating.headers.add(name: "If-None-Match", value: "\"v1\"")
        let keys = [DownloadOptions(), insecure, cookies, revalidating].map { $0.coalescingKey(for: plain) }
        #expect(Set(keys).count == 4, "different transfers never share a key")
        // No URL's string can pose as another URL with options: the separator is a space.
        for options in [insecure, cookies, revalidating] {
            let key = options.coalescingKey(for: plain)
            let suffix = String(key.dropFirst(plain.absoluteString.count))
            #expect(suffix.hasPrefix(" "))
            if let lookalike = URL(string: plain.absoluteString + suffix) {
                #expect(DownloadOptions().coalescingKey(for: lookalike) != key)
            }
        }
    }

    @Test("D3 the first of two callers cancels; the second still gets the image")
    func D3_oneCallerCancels() async throws {
        try await withDownloader { origin, downloader in
            // The response is held until the first caller has its cancellation, however slow the machine.
            let gate = TestOriginGate()
            origin.register("/slow.png", .gated(gate, then: .image(Self.png)))
            let outcomes = Recorder<String>()
            let first = downloader.download(origin.url("/slow.png")) { result in
                outcomes.append(result.map { _ in "first: image" }.mapError { $0 }.description(prefix: "first"))
            }
            downloader.download(origin.url("/slow.png")) { result in
                outcomes.append(result.map { _ in "second: image" }.mapError { $0 }.description(prefix: "second"))
            }
            #expect(await origin.waitForRequests("/slow.png"))
            first?.cancel()
            #expect(await outcomes.wait(for: 1))
            gate.open()
            #expect(await outcomes.wait(for: 2))
            #expect(outcomes.values.first == "first: cancelled")
            #expect(outcomes.values.contains("second: image"))
            #expect(origin.requestCount("/slow.png") == 1)
            #expect(origin.abortedCount("/slow.png") == 0)
        }
    }

    @Test("D4 when every caller cancels, the transfer stops")
    func D4_allCallersCancel() async throws {
        try await withDownloader { origin, downloader in
            origin.register("/stall.png", .stall)
            let outcomes = Recorder<ImageError?>()
            let tokens = (0..<3).compactMap { _ in
                downloader.download(origin.url("/stall.png")) { result in
                    if case .failure(let error) = result { outcomes.append(error) } else { outcomes.append(nil) }
                }
            }
            #expect(await origin.waitForRequests("/stall.png"))
            #expect(downloader.currentDownloadCount == 1)
            for token in tokens { token.cancel() }
            #expect(await outcomes.wait(for: 3))
            #expect(outcomes.values.allSatisfy { $0 == .cancelled })
            #expect(await origin.waitForAbort("/stall.png"), "the origin saw the connection close")
            #expect(await eventually { downloader.currentDownloadCount == 0 })
        }
    }

    @Test("D5 a request after a cancelled one starts a fresh transfer")
    func D5_freshTransferAfterCancel() async throws {
        try await withDownloader { origin, downloader in
            // The first response is held until after the cancel, however slow the machine.
            let gate = TestOriginGate()
            origin.register("/x.png", .gated(gate, then: .image(Self.png)))
            let cancelled = Recorder<Bool>()
            let token = downloader.download(origin.url("/x.png")) { result in
                if case .failure(.cancelled) = result { cancelled.append(true) }
            }
            #expect(await origin.waitForRequests("/x.png"))
            token?.cancel()
            #expect(await cancelled.wait(for: 1))
            gate.open()
            let response = try await downloader.load(origin.url("/x.png"))
            #expect(response.data == Self.png)
            #expect(origin.requestCount("/x.png") == 2)
        }
    }

    @Test("D6 a transfer frees its slot before its completions run, so a slow completion holds up no queued download")
    func D6_slotFreedBeforeCompletions() async throws {
        try await withDownloader(configure: { $0.maxConcurrentDownloads = 1 }) { origin, downloader in
            let firstGate = TestOriginGate(), secondGate = TestOriginGate()
            origin.register("/first.png", .gated(firstGate, then: .image(Self.png)))
            origin.register("/second.png", .gated(secondGate, then: .image(Self.png)))
            let seen = Recorder<String>()
            downloader.download(origin.url("/first.png")) { _ in
                // The queued second download already holds the only slot (and waits at its gate).
                seen.append("first done, downloads: \(downloader.currentDownloadCount)")
            }
            #expect(await origin.waitForRequests("/first.png"))
            downloader.download(origin.url("/second.png")) { _ in seen.append("second done") }
            #expect(downloader.currentDownloadCount == 2, "one running, one queued")
            firstGate.open()
            #expect(await seen.wait(for: 1))
            #expect(seen.values == ["first done, downloads: 1"])
            #expect(await origin.waitForRequests("/second.png"))
            secondGate.open()
            #expect(await seen.wait(for: 2))
            #expect(await eventually { downloader.currentDownloadCount == 0 })
        }
    }

    @Test("D6 maxConcurrentDownloads is a real limit, and raising it starts queued downloads")
    func D6_concurrencyLimit() async throws {
        try await withDownloader(configure: { $0.maxConcurrentDownloads = 1 }) { origin, downloader in
            for index in 0..<4 { origin.register("/q\(index).png", .delayed(.milliseconds(80), then: .image(Self.png))) }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<4 {
                    group.addTask { _ = try await downloader.load(origin.url("/q\(index).png")) }
                }
                try await group.waitForAll()
            }
            #expect(origin.maxConcurrentRequests == 1)

            for index in 0..<3 { origin.register("/s\(index).png", .stall) }
            let tokens = (0..<3).compactMap { index in downloader.download(origin.url("/s\(index).png")) { _ in } }
            #expect(await origin.waitUntil { $0.inFlightCount == 1 })
            try await Task.sleep(for: .milliseconds(100))
            #expect(origin.inFlightCount == 1, "the others wait in the queue")
            downloader.maxConcurrentDownloads = 3
            #expect(await origin.waitUntil { $0.inFlightCount == 3 }, "raising the limit starts them at once")
            tokens.forEach { $0.cancel() }
        }
    }

    /// Queues downloads of `paths` (with their options) while suspended, resumes, and
    /// returns the order in which the origin saw them.
    private func arrivalOrder(
        order: DownloaderConfig.ExecutionOrder, _ requests: [(String, DownloadPriority)]
    ) async throws -> [String] {
        var arrival: [String] = []
        try await withDownloader(configure: { $0.maxConcurrentDownloads = 1; $0.executionOrder = order }) { origin, downloader in
            let seen = Recorder<String>()
            for (path, _) in requests {
                origin.register(path, handler: { request in
                    seen.append(request.path)
                    return .image(Self.png)
                })
            }
            downloader.isSuspended = true
            let done = Recorder<Bool>()
            for (path, priority) in requests {
                downloader.download(origin.url(path), options: DownloadOptions(priority: priority)) { _ in done.append(true) }
            }
            #expect(origin.totalRequestCount == 0, "nothing starts while suspended")
            downloader.isSuspended = false
            #expect(await done.wait(for: requests.count))
            arrival = seen.values
        }
        return arrival
    }

    @Test("D7 FIFO, LIFO, and priorities decide the order queued downloads start")
    func D7_executionOrder() async throws {
        let plain: [(String, DownloadPriority)] = [("/a", .normal), ("/b", .normal), ("/c", .normal), ("/d", .normal)]
        #expect(try await arrivalOrder(order: .fifo, plain) == ["/a", "/b", "/c", "/d"])
        #expect(try await arrivalOrder(order: .lifo, plain) == ["/d", "/c", "/b", "/a"])
        #expect(try await arrivalOrder(order: .fifo, [("/a", .normal), ("/b", .high), ("/c", .normal)]) == ["/b", "/a", "/c"])
        #expect(try await arrivalOrder(order: .fifo, [("/a", .low), ("/b", .normal), ("/c", .normal)]) == ["/b", "/c", "/a"])
    }

    @Test("D8 progress starts at 0, grows, ends at the full size, and is throttled")
    func D8_progress() async throws {
        let body = Data(repeating: 7, count: 40_000)
        try await withDownloader(configure: { $0.minimumProgressInterval = .milliseconds(100) }) { origin, downloader in
            origin.register("/big.bin", TestOriginResponse.data(body).streamed(chunkSize: 2_000, interval: .milliseconds(15)))
            let reports = Recorder<DownloadProgress>()
            let response = try await downloader.load(origin.url("/big.bin")) { reports.append($0) }
            #expect(response.data == body)
            let received = reports.values.map(\.receivedBytes)
            #expect(received.first == 0)
            #expect(received.last == 40_000)
            #expect(received == received.sorted())
            #expect(reports.values.allSatisfy { $0.expectedBytes == 40_000 })
            #expect(received.count < 20, "20 chunks over ~300 ms, reported at most every 100 ms: \(received)")
        }
    }

    @Test("D9 unacceptable status codes and content types fail")
    func D9_statusAndContentType() async throws {
        try await withDownloader(configure: { $0.acceptableContentTypes = ["image/*"] }) { origin, downloader in
            origin.register("/missing.png", .status(404))
            origin.register("/page", .html("<html>hello</html>"))
            origin.register("/ok.png", .image(Self.png))
            await #expect(throws: ImageError.invalidStatusCode(404)) { try await downloader.load(origin.url("/missing.png")) }
            await #expect(throws: ImageError.invalidContentType("text/html")) { try await downloader.load(origin.url("/page")) }
            _ = try await downloader.load(origin.url("/ok.png"))
        }
    }

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
        case .stopped: "stopped"
        case .finished: "finished"
        case .variantMade: "variantMade"
        case .backgroundWorkExpired: "backgroundWorkExpired"
        }
    }
}

extension Result where Success == String, Failure == ImageError {
    func description(prefix: String) -> String {
        switch self {
        case .success(let value): value
        case .failure(.cancelled): "\(prefix): cancelled"
        case .failure(let error): "\(prefix): \(error)"
        }
    }
}
