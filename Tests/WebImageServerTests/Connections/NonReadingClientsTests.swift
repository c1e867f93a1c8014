import Foundation
import NIOCore
import Testing
@testable import WebImage
@testable import WebImageServer
import WebImageLocking
import WebImageTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// Clients that ask for a large image and never read it, against `webimage serve` in a
/// process of its own (its memory and file descriptors are watched): the write deadline
/// closes each, `/health` is answered all along, and a stop ends within the graceful-stop
/// timeout however many are stuck. The server's send buffers are 64 KiB, so that the
/// responses do not fit in them (the kernel grows a loopback connection's to 4 MiB). Every wait is on an event (a metric reaching its
/// count, the process exiting); the short timeouts only make the events come soon.
@Suite("Clients that never read", .serialized)
struct NonReadingClientsTests {
    static let clients = 500

    /// 800 × 800 random pixels: a PNG of about 1.9 MB that no socket buffer holds whole.
    static let noise: Data = {
        var generator = SystemRandomNumberGenerator()
        // Eight random bytes at a time: a byte-wise loop costs seconds in a debug build.
        var pixels = [UInt8](repeating: 0, count: 800 * 800 * 3)
        pixels.withUnsafeMutableBytes { raw in
            for offset in stride(from: 0, to: raw.count, by: 8) {
                raw.storeBytes(of: generator.next(), toByteOffset: offset, as: UInt64.self)
            }
        }
        return try! TestImages.encode(try! Image(pixels: pixels, width: 800, height: 800, channels: 3), as: .png)
    }()

    /// Opens ``clients`` connections that ask for `path` and never read, while `/health`
    /// is asked for on other connections; returns the clients, and the `/health` answers
    /// that came while they were opened.
    static func openNonReaders(_ proxy: ServeProcess, path: String) async throws -> ([NonReadingClient], Int) {
        let request = "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
        let opened = TaskGate()
        let healthy = Locked(0)
        let health = Task {
            repeat {
                if (try? await proxy.client.get("/health").status) == 200 { healthy.withLock { $0 += 1 } }
                try? await Task.sleep(for: .milliseconds(20))
            } while !opened.isOpen
        }
        let connected = try await withThrowingTaskGroup(of: NonReadingClient.self) { group in
            for _ in 0..<Self.clients { group.addTask { try await NonReadingClient.open(port: proxy.port, sending: request) } }
            var clients: [NonReadingClient] = []
            for try await client in group { clients.append(client) }
            return clients
        }
        opened.open()
        await health.value
        return (connected, healthy.withLock { $0 })
    }

    static let writeTimeouts = "webimage_client_timeouts_total{kind=\"write_response\"}"

    /// Makes the variant at `path` with a `HEAD` request, so that no body of it is written
    /// under the short write deadline to a client the loaded machine may make slow; the
    /// status and the variant's length.
    static func made(_ proxy: ServeProcess, path: String) async throws -> (status: Int, length: Int) {
        let reply = try await proxy.client.head(path)
        let length = reply.headers.first { $0.0.lowercased() == "content-length" }.flatMap { Int($0.1) } ?? 0
        return (reply.status, length)
    }

    @Test("HP2 500 clients that never read are each closed by the write timeout; /health is answered all along")
    func writeDeadlineClosesNonReaders() async throws {
        let origin = try await TestOrigin.start()
        defer { Task { try? await origin.shutdown() } }
        origin.register("/noise.png", .image(Self.noise))
        let proxy = try ServeProcess([
            "--write-response-timeout", "10", "--read-request-timeout", "600", "--keep-alive-timeout", "600",
            "--max-clients-per-address", "0", "--client-send-buffer", "64K",
        ])
        defer { proxy.stop() }
        let path = proxyPath("f:png", source: origin.url("/noise.png"))
        // Made once and kept in memory: every slow reader is sent the same bytes.
        let first = try await Self.made(proxy, path: path)
        #expect(first.status == 200)
        #expect(first.length > 1_000_000)
        let timeoutsBefore = (try? await proxy.metric(Self.writeTimeouts)) ?? 0
        let baselineKB = proxy.residentKilobytes()
        let baselineFiles = proxy.openFileDescriptors()

        let (clients, healthyWhileOpening) = try await Self.openNonReaders(proxy, path: path)
        let heldKB = proxy.residentKilobytes()
        #expect(healthyWhileOpening >= 1)
        // Every one is closed by the server's write deadline; /health is answered meanwhile.
        var healthyWhileHeld = 0
        var timedOut = 0.0
        // A pooled connection the client library finds closed fails one call: the next one
        // counts, and the loop ends on the metric.
        repeat {
            if (try? await proxy.client.get("/health"))?.status == 200 { healthyWhileHeld += 1 }
            timedOut = (try? await proxy.metric(Self.writeTimeouts)) ?? timedOut
            // Paced, so that the probes do not spin both processes until the deadline.
            try await Task.sleep(for: .milliseconds(50))
        } while timedOut < timeoutsBefore + Double(Self.clients)
        #expect(timedOut == timeoutsBefore + Double(Self.clients))
        #expect(healthyWhileHeld >= 1)
        #expect(await eventually { proxy.openFileDescriptors() <= baselineFiles + 8 })
        // The response's bytes are shared, not copied per connection.
        #expect(heldKB - baselineKB < 200_000, "RSS grew by \(heldKB - baselineKB) KB with \(Self.clients) slow readers")
        print("HP2 figures: RSS \(baselineKB) KB before, \(heldKB) KB with \(Self.clients) clients that never read a \(first.length)-byte response")
        for client in clients { await client.close() }
    }

    @Test("HP2 a stop with 500 clients stuck in their responses ends within the graceful-stop timeout, exiting 0")
    func stopEndsWithinGracefulTimeout() async throws {
        let origin = try await TestOrigin.start()
        defer { Task { try? await origin.shutdown() } }
        origin.register("/noise.png", .image(Self.noise))
        // The write deadline is ten minutes: only the stop's own timeout can end these.
        let proxy = try ServeProcess([
            "--graceful-stop-timeout", "2", "--write-response-timeout", "600", "--read-request-timeout", "600",
            "--keep-alive-timeout", "600", "--max-clients-per-address", "0", "--client-send-buffer", "64K",
        ])
        defer { proxy.stop() }
        let path = proxyPath("f:png", source: origin.url("/noise.png"))
        #expect(try await Self.made(proxy, path: path).status == 200)
        let (clients, _) = try await Self.openNonReaders(proxy, path: path)
        // Connected is not accepted: wait until the server holds every one of them.
        while try await proxy.metric("webimage_client_connections") < Double(Self.clients) {
            try await Task.sleep(for: .milliseconds(20))
        }
        let started = ContinuousClock.now
        kill(proxy.process.processIdentifier, SIGTERM)
        // A bound for a hung process only.
        #expect(await eventually(timeout: .seconds(300)) { !proxy.isRunning })
        let stopped = ContinuousClock.now - started
        #expect(proxy.termination?.reason == .exit)
        #expect(proxy.termination?.status == 0)
        print("HP2 figures: stop with \(Self.clients) clients that never read took \(stopped) (graceful-stop timeout 2 s)")
        for client in clients { await client.close() }
    }
}
