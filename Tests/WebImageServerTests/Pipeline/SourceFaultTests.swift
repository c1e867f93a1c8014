import AsyncHTTPClient
import Foundation
import NIOCore
import Testing
@testable import WebImage
@testable import WebImageServer
import WebImageTestSupport

/// Sources that misbehave, against `webimage serve` in a process of its own: each fault
/// gets the answer it should, the process stays up, and its open files and memory come
/// back to where they were before the fault.
@Suite("Source faults", .serialized)
struct SourceFaultTests {
    /// What a fault may leave behind once it is over: allocator slack and a few files, plus
    /// one kept-alive source connection per request that ran at once (a source answering
    /// whole 5xx replies keeps its connections pooled) — nothing that grows with the
    /// number of requests.
    static let spareFileDescriptors = 4
    static let spareKilobytes = 48 * 1024

    /// One fault: `setUp` registers the source's behaviour under `/fault-<n>.jpg`, then
    /// `requests` requests (`concurrency` at a time) must each get `status`.
    struct Fault: Sendable, CustomTestStringConvertible {
        let name: String
        let response: @Sendable (Data) -> TestOriginResponse
        let status: Int
        let message: String
        let requests: Int
        let concurrency: Int
        /// The proxy's download timeout: 1 s, so that a trickle times out soon; longer where
        /// the fault must reach another limit first, even under the thread sanitizer.
        var downloadTimeout = 1
        var testDescription: String { name }
    }

    static let faults: [Fault] = [
        Fault(name: "resets the connection mid-body", response: { $0.isEmpty ? .reset : .image($0, contentType: "image/jpeg").resetting(afterBodyBytes: $0.count / 2) },
              status: 502, message: "source", requests: 20, concurrency: 4),
        Fault(name: "trickles within the idle timeout past the total deadline", response: { .image($0, contentType: "image/jpeg").streamed(chunkSize: 64, interval: .milliseconds(250)) },
              status: 504, message: "timed out", requests: 8, concurrency: 4),
        Fault(name: "declares more bytes than it sends, then closes", response: { .lyingContentLength(declared: $0.count + 10_000, body: $0, contentType: "image/jpeg") },
              status: 502, message: "source", requests: 20, concurrency: 4),
        Fault(name: "declares fewer bytes than the image has", response: { .lyingContentLength(declared: $0.count / 3, body: $0, contentType: "image/jpeg") },
              status: 422, message: "not a usable image", requests: 20, concurrency: 4),
        Fault(name: "answers 503 to everything (a 5xx storm)", response: { _ in .status(503) },
              status: 502, message: "HTTP 503", requests: 60, concurrency: 12),
        Fault(name: "sends a body that never ends", response: { _ in .endless() },
              status: 422, message: "max source bytes", requests: 8, concurrency: 4, downloadTimeout: 60),
    ]

    @Test("the answer, the process alive, open files and memory back to their baseline", arguments: faults)
    func fault(_ fault: Fault) async throws {
        let origin = try await TestOrigin.start()
        let proxy = try ServeProcess([
            "--download-timeout", String(fault.downloadTimeout), "--max-source-bytes", "2MB", "--workers", "4", "--development-errors",
        ])
        do {
            try await Self.check(fault, origin: origin, proxy: proxy)
        } catch {
            proxy.stop()
            try? await origin.shutdown()
            throw error
        }
        proxy.stop()
        try await origin.shutdown()
    }

    private static func check(_ fault: Fault, origin: TestOrigin, proxy: ServeProcess) async throws {
        // Warm: threads, pools and a keep-alive connection exist before the baseline.
        origin.register("/good.jpg", .image(ProxyImages.jpeg, contentType: "image/jpeg"))
        for size in [50, 60, 70] {
            #expect(try await proxy.client.get(proxyPath("rs:fit:\(size):\(size)", source: origin.url("/good.jpg"))).status == 200)
        }
        try await Task.sleep(for: .milliseconds(300))
        let baseFiles = proxy.openFileDescriptors()
        let baseMemory = proxy.residentKilobytes()

        for index in 0..<fault.requests {
            origin.register("/fault-\(index).jpg", fault.response(ProxyImages.jpeg))
        }
        let statuses = try await withThrowingTaskGroup(of: (Int, String).self) { group in
            var statuses: [(Int, String)] = []
            var next = 0
            func start() {
                let path = proxyPath("rs:fit:100:100", source: origin.url("/fault-\(next).jpg"))
                next += 1
                group.addTask { let reply = try await proxy.client.get(path); return (reply.status, reply.text) }
            }
            while next < min(fault.concurrency, fault.requests) { start() }
            while let result = try await group.next() {
                statuses.append(result)
                if next < fault.requests { start() }
            }
            return statuses
        }
        #expect(statuses.count == fault.requests)
        #expect(statuses.allSatisfy { $0.0 == fault.status }, "\(Set(statuses.map { "\($0.0) \($0.1)" }))")
        #expect(statuses.allSatisfy { $0.1.contains(fault.message) }, "\(Set(statuses.map(\.1)))")
        // Nothing of a failed source is cached: it is asked again.
        #expect(try await proxy.metric("webimage_processed_total") == 3)

        // Alive and serving.
        #expect(proxy.isRunning)
        #expect(try await proxy.client.get("/health").status == 200)
        #expect(try await proxy.client.get(proxyPath("rs:fit:80:80", source: origin.url("/good.jpg"))).status == 200)

        // Open files come back (connections to the source closed, no file left open).
        var files = proxy.openFileDescriptors()
        let deadline = ContinuousClock.now + .seconds(10)
        let allowed = baseFiles + spareFileDescriptors + fault.concurrency
        while files > allowed, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(100))
            files = proxy.openFileDescriptors()
        }
        #expect(files <= allowed, "open files: \(baseFiles) before, \(files) after \(fault.requests) requests")
        let memory = proxy.residentKilobytes()
        #expect(memory <= baseMemory + spareKilobytes, "resident memory: \(baseMemory) KB before, \(memory) KB after")
    }

    // SPEC HP1
    @Test("HP1 a client that hangs up before its variant is made: the work stops, its download closed, and the next request makes the variant anew")
    func clientHangsUp() async throws {
        let origin = try await TestOrigin.start()
        let proxy = try ServeProcess(["--workers", "2"])
        defer { proxy.stop() }
        origin.register("/slow.jpg", .delayed(.milliseconds(800), then: .image(ProxyImages.jpeg, contentType: "image/jpeg")))
        let path = proxyPath("rs:fit:90:90", source: origin.url("/slow.jpg"))
        let request = HTTPClientRequest(url: "http://127.0.0.1:\(proxy.port)\(path)")
        await #expect(throws: (any Error).self) {
            _ = try await HTTPClient.shared.execute(request, timeout: .milliseconds(200))
        }
        #expect(await origin.waitForAbort("/slow.jpg"), "the download was closed when its only client left")
        #expect(try await proxy.metric("webimage_processed_total") == 0)
        let reply = try await proxy.client.get(path)
        #expect(reply.status == 200)
        #expect(try await proxy.metric("webimage_processed_total") == 1)
        #expect(origin.requestCount("/slow.jpg") == 2)
        #expect(proxy.isRunning)
        try await origin.shutdown()
    }
}
