import Foundation
import Testing
@testable import WebImage
@testable import WebImageServer
import WebImageTestSupport

/// `--cache none|memory|disk|memory+disk`: what each keeps, counted in source downloads,
/// files on disk and cache hits; imgproxy's profile keeps nothing on disk.
@Suite("Cache tiers")
struct CacheTiersTests {
    /// For each tier: the source downloads after two variants of one source and the first
    /// asked again, whether anything is on disk, and the kind of the repeat's hit.
    static let cases: [(CacheTiers, downloads: Int, onDisk: Bool, repeatHit: String?)] = [
        (.memoryAndDisk, 1, true, "memory"),
        (.disk, 1, true, "disk"),
        (.memory, 2, false, "memory"),
        (.none, 3, false, nil),
    ]

    @Test("each tier keeps what it says, and no other", arguments: cases)
    func tiers(_ example: (CacheTiers, downloads: Int, onDisk: Bool, repeatHit: String?)) async throws {
        try await TestProxy.with(configure: { $0.caching.tiers = example.0 }) { (origin, proxy) async throws in
            origin.register("/photo.jpg", .image(ProxyImages.jpeg))
            let first = proxyPath("rs:fit:40:40", source: origin.url("/photo.jpg"), extension: "png")
            #expect(try await proxy.get(first).status == 200)
            #expect(try await proxy.get(proxyPath("rs:fit:50:50", source: origin.url("/photo.jpg"), extension: "png")).status == 200)
            #expect(try await proxy.get(first).status == 200)
            #expect(origin.requests("/photo.jpg").count == example.downloads, "\(example.0)")
            #expect(FileManager.default.fileExists(atPath: proxy.cacheDirectory) == example.onDisk, "\(example.0)")
            if example.onDisk {
                #expect(proxy.variantFilesOnDisk() == 2)
                #expect(proxy.originalFilesOnDisk() == 1)
            }
            for hit in ["memory", "disk"] {
                #expect(try await proxy.metric("webimage_cache_hits_total{type=\"\(hit)\"}") == (hit == example.repeatHit ? 1 : 0), "\(example.0) \(hit)")
            }
        }
    }

    @Test("the setting reads the four names; imgproxy's profile keeps memory only, WebImage's memory and disk")
    func setting() throws {
        #expect(ServerProfile.webimage.defaults.caching.tiers == .memoryAndDisk)
        #expect(ServerProfile.imgproxy.defaults.caching.tiers == .memory)
        for tiers in CacheTiers.allCases {
            var config = ServerConfig()
            try ServerSetting.apply(environment: ["WEBIMAGE_CACHE": tiers.rawValue], to: &config)
            #expect(config.caching.tiers == tiers)
        }
        var config = ServerConfig()
        #expect(throws: ServerConfigError.self) { try ServerSetting.cache.apply(["memory,disk"], to: &config) }
        #expect(config.caching.startupLine.contains("in memory and on disk"))
        config.caching.tiers = .memory
        #expect(config.caching.startupLine.contains("nothing on disk"))
    }
}
