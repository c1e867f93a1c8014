import Foundation
import VersionedPayload
import Glibc
import Testing
@testable import WebImage
import WebImageTestSupport

@Suite("Disk cache crash safety")
struct DiskCacheCrashTests {
    @Test func C8_writerKilledAtRandomMomentsNeverLeavesATornEntry() async throws {
        let writer = try BuiltExecutables.path(of: "DiskCacheCrashWriter")
        try await withTemporaryDirectory { directory in
            var generator = SystemRandomNumberGenerator()
            var hits = 0
            var misses = 0
            var killedWhileWriting = 0
            for round in 0..<36 {
                let process = ChildProcess()
                process.executableURL = URL(fileURLWithPath: writer)
                // Each round starts from a different generation so that entries really change.
                process.arguments = [directory, String(round * 1_000_000)]
                let ready = Pipe()
                process.standardOutput = ready
                try process.run()
                // The writer prints a line once it has started writing.
                _ = ready.fileHandleForReading.readData(ofLength: 1)
                // Slept on this thread, not with Task.sleep: a resumption that waits for a
                // free thread of a busy pool would leave the writer running for seconds.
                usleep(UInt32.random(in: 0...20_000, using: &generator))
                kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
                if process.terminationReason == .uncaughtSignal { killedWhileWriting += 1 }

                // Open the cache fresh, as a restarted process would.
                let cache = DiskCache(config: crashConfig(directory))
                for key in VersionedPayload.keys {
                    guard let entry = cache.entrySync(forKey: key) else {
                        misses += 1
                        continue
                    }
                    hits += 1
                    let generation = VersionedPayload.verifiedGeneration(of: entry.data, key: key)
                    #expect(generation != nil, "round \(round): \(key) read back \(entry.data.count) bytes that are no complete version")
                    #expect(entry.metadata.etag == generation.map(String.init), "round \(round): metadata of another version")
                    #expect(entry.key == key)
                }
            }
            #expect(killedWhileWriting == 36)
            #expect(hits > 0)
            // Leftover temporary files are cleaned once they are old.
            let cache = DiskCache(config: crashConfig(directory))
            let old = Date().addingTimeInterval(-3600)
            for name in fileNames(in: cache.directory) where DiskFiles.isTemporary(name) {
                setFileTimes(cache.directory + "/" + name, accessed: old, modified: old)
            }
            await cache.clean()
            #expect(fileNames(in: cache.directory).allSatisfy { !DiskFiles.isTemporary($0) })
            _ = misses
        }
    }

    private func crashConfig(_ directory: String) -> CacheConfig {
        var config = testConfig(directory, namespace: "crash")
        config.maxDiskAge = -1
        return config
    }
}
