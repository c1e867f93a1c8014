import Foundation
import Testing
@testable import WebImage
@testable import WebImageServer
import WebImageTestSupport

#if canImport(Glibc)
import Glibc
#endif

@Suite("Proxy graceful shutdown")
struct GracefulShutdownTests {
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
        #expect(await eventually { !loopbackAccepts(port: port) })
        let reply = try await slow
        #expect(reply.status == 200)
        #expect(ImageFormat(data: reply.body) == .jpeg)
        process.waitUntilExit()
        #expect(process.terminationReason == .exit)
        #expect(process.terminationStatus == 0)
    }
}
