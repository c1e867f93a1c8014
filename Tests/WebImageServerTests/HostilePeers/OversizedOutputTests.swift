import Foundation
import Testing
@testable import WebImage
@testable import WebImageServer
import WebImageTestSupport

/// An output that can never fit the memory budget is refused before anything is decoded.
@Suite("Hostile peers: outputs over the memory budget")
struct OversizedOutputTests {
    // SPEC HP6
    @Test("HP6 an enlarged or extended output of a tiny source that cannot fit the budget is answered 422 before it is decoded", arguments: [
        "rs:force:6000:6000/el:1", "w:50/h:50/ex:1/pd:3000:3000",
    ])
    func refusedBeforeDecode(options: String) async throws {
        let tiny = try TestImages.encode(try TestImages.quadrants(width: 8, height: 8), as: .png)
        for profile in ServerProfile.allCases {
            try await TestProxy.with(configure: {
                $0 = { var config = profile.defaults; config.listen.port = 0; config.sources.allowLoopback = true; config.limits.workers = 2; return config }()
                $0.caching.cacheDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-hp6-\(UUID().uuidString)").path
                $0.limits.memoryBudget = 64 << 20
                // The figure is in the diagnostic, which the body carries with development errors.
                $0.responses.developmentErrors = true
            }) { origin, proxy in
                origin.register("/tiny.png", .image(tiny, contentType: "image/png"))
                let reply = try await proxy.get("/insecure/\(options)/plain/\(origin.url("/tiny.png").absoluteString)")
                #expect(reply.status == 422, "\(profile): \(reply.text)")
                #expect(reply.text.contains("memory budget of 67.1 MB"), "\(reply.text)")
                let budget = try #require(proxy.server.manager.variantWorkLimiter?.memoryBudget)
                #expect(budget.peakReservedBytes == 0, "nothing was reserved, so nothing was decoded")
                #expect(proxy.variantFilesOnDisk() == 0)
                // A size that fits is made.
                #expect(try await proxy.get("/insecure/rs:force:300:300/el:1/plain/\(origin.url("/tiny.png").absoluteString)").status == 200)
            }
        }
    }
}
