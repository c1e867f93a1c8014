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
