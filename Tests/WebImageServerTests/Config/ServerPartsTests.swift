import Foundation
import Testing
@testable import WebImageServer

/// The checks a configuration passes before a server is built from it, and their order.
@Suite("Server parts")
struct ServerPartsTests {
    /// A configuration with a problem in every part: each fix uncovers the next part's.
    static func brokenEverywhere() -> ServerConfig {
        var config = ServerConfig()
        config.encoding.watermarkOpacity = 2
        config.signing.keys = ["zz"]
        config.signing.salts = ["73616c74"]
        config.signing.sourceURLEncryptionKey = "abcd"
        config.signing.presets = ["broken": "rs:fit:not-a-number"]
        config.sources.localFilesystemRoot = "/nonexistent/webimage-parts"
        config.sources.caFile = "/nonexistent/ca.pem"
        return config
    }

    /// The message of the first problem `config` has, or nil when it has none.
    static func firstProblem(_ config: ServerConfig) -> String? {
        do {
            try config.validate()
            return nil
        } catch {
            return error.message
        }
    }

    @Test("the first problem is thrown, in order: each setting's own value, then the keys, the source key, the presets, the local root and the downloader")
    func problemsInOrder() throws {
        var config = Self.brokenEverywhere()
        let steps: [(expected: String, fix: (inout ServerConfig) -> Void)] = [
            ("watermark-opacity", { $0.encoding.watermarkOpacity = 1 }),
            ("key", { $0.signing.keys = ["736563726574"] }),
            ("encryption", { $0.signing.sourceURLEncryptionKey = nil }),
            ("preset", { $0.signing.presets = [:] }),
            ("local", { $0.sources.localFilesystemRoot = nil }),
            ("--ca-file", { $0.sources.caFile = nil }),
        ]
        for step in steps {
            let message = try #require(Self.firstProblem(config), "expected a problem naming '\(step.expected)'")
            #expect(message.lowercased().contains(step.expected), "\(message)")
            step.fix(&config)
        }
        #expect(Self.firstProblem(config) == nil)
    }

    @Test("a server is not built from a configuration validate() refuses, and fails with the same message")
    func serverFailsAsValidateDoes() throws {
        var config = Self.brokenEverywhere()
        config.encoding.watermarkOpacity = 1
        let expected = try #require(Self.firstProblem(config))
        #expect { try ProxyServer(config: config) } throws: { ($0 as? ServerConfigError)?.message == expected }
    }
}
