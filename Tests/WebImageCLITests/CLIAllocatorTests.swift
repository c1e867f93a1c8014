import Foundation
import Testing
import WebImageTestSupport

#if canImport(Glibc)
import Glibc
#endif

@Suite("Allocator settings")
struct CLIAllocatorTests {
    /// The `allocator:` line `webimage serve --log-level debug` logs at start-up, with
    /// `environment` added to this process's.
    static func allocatorLine(environment: [String: String]) throws -> String? {
        let cache = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-alloc-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: cache) }
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: try BuiltExecutables.path(of: "webimage"))
        process.arguments = ["serve", "--port", "0", "--log-level", "debug", "--cache-dir", cache]
        var merged = ProcessInfo.processInfo.environment
        for name in ["MALLOC_ARENA_MAX", "MALLOC_ARENA_TEST", "GLIBC_TUNABLES"] { merged[name] = nil }
        process.environment = merged.merging(environment) { $1 }
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        defer {
            kill(process.processIdentifier, SIGTERM)
            process.waitUntilExit()
        }
        var text = ""
        let handle = output.fileHandleForReading
        // Logged before the server listens: read until it listens (or stops).
        while !text.contains("listening on") {
            let chunk = handle.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        return text.split(separator: "\n").first { $0.contains("allocator:") }.map(String.init)
    }

    @Test("webimage sets glibc malloc to 4 arenas itself; MALLOC_ARENA_MAX or a tunable in the environment wins")
    func arenas() throws {
        let own = try #require(try Self.allocatorLine(environment: [:]))
        #expect(own.contains("glibc malloc with 4 arenas (set by webimage"), "\(own)")
        for environment in [["MALLOC_ARENA_MAX": "2"], ["GLIBC_TUNABLES": "glibc.malloc.arena_max=8"]] {
            let line = try #require(try Self.allocatorLine(environment: environment))
            #expect(line.contains("the arenas the environment sets"), "\(environment): \(line)")
        }
    }
}
