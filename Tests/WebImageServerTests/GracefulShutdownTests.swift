import Foundation
import Testing
@testable import WebImage
@testable import WebImageServer
import WebImageTestSupport

#if canImport(Glibc)
import Glibc
#endif

// SPEC S10
@Suite("Proxy graceful shutdown")
struct GracefulShutdownTests {
    /// Whether a TCP connection to 127.0.0.1:`port` is accepted.
    static func accepts(port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }

    @Test("S10 SIGTERM: the request in flight finishes, new connections are refused, the process exits 0")
    func sigterm() async throws {
        let origin = try await TestOrigin.start()
        defer { Task { try? await origin.shutdown() } }
        origin.register("/slow.jpg", .delayed(.seconds(2), then: .image(ProxyImages.jpeg)))

        let proxy = try ServeProcess()
        defer { proxy.stop() }
        let port = proxy.port
        let process = proxy.process

        let client = LiveClient(port: port)
        async let slow = client.get(proxyPath("", source: origin.url("/slow.jpg")))
        #expect(await origin.waitForRequests("/slow.jpg"))
        kill(process.processIdentifier, SIGTERM)
        #expect(await eventually { !Self.accepts(port: port) })
        let reply = try await slow
        #expect(reply.status == 200)
        #expect(ImageFormat(data: reply.body) == .jpeg)
        process.waitUntilExit()
        #expect(process.terminationReason == .exit)
        #expect(process.terminationStatus == 0)
    }
}
