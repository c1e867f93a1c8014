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

    @Test("--graceful-stop-timeout: a stop cuts off a request still in flight when the time is up, and the process exits 0")
    func gracefulStopTimeout() async throws {
        let origin = try await TestOrigin.start()
        defer { Task { try? await origin.shutdown() } }
        origin.register("/stall.jpg", .stall)

        // The request could wait ten minutes; the stop waits one second for it.
        let proxy = try ServeProcess(["--graceful-stop-timeout", "1", "--request-timeout", "600", "--download-timeout", "600"])
        defer { proxy.stop() }
        let process = proxy.process
        let client = LiveClient(port: proxy.port)
        async let stalled: TestProxy.Reply? = try? await client.get(proxyPath("", source: origin.url("/stall.jpg")))
        #expect(await origin.waitForRequests("/stall.jpg"))
        kill(process.processIdentifier, SIGTERM)
        // Cut off: no image comes, whether the connection closes or an error is answered.
        if let reply = await stalled { #expect(reply.status != 200) }
        process.waitUntilExit()
        #expect(process.terminationReason == .exit)
        #expect(process.terminationStatus == 0)
        var config = ServerConfig()
        try ImgproxyEnvironment.apply(["IMGPROXY_GRACEFUL_STOP_TIMEOUT": "0"], to: &config)
        #expect(config.listen.gracefulStopTimeout == .zero)
        #expect(ServerProfile.imgproxy.defaults.listen.gracefulStopTimeout == .seconds(20))
    }
}
