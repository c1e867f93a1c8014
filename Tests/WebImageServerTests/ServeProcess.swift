import Foundation
import Testing
import WebImage
import WebImageTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// `webimage serve` running as a process of its own: what an operator runs, with its own
/// file descriptors and memory to watch (`/proc/<pid>`).
final class ServeProcess: Sendable {
    let process: ChildProcess
    let port: Int
    let cacheDirectory: String
    let client: LiveClient

    /// Starts `webimage serve` on a free loopback port with loopback sources allowed, the cache in
    /// `cacheDirectory` (a fresh one by default) and `arguments`, with `environment` added to
    /// this process's, and waits until it listens.
    /// With `withDefaultArguments` false, `webimage serve` gets `arguments` alone, so that
    /// `environment` must say where to listen (on 127.0.0.1) and where to cache.
    init(_ arguments: [String] = [], cacheDirectory: String? = nil, environment: [String: String] = [:], withDefaultArguments: Bool = true) throws {
        let cacheDirectory = cacheDirectory
            ?? FileManager.default.temporaryDirectory.appendingPathComponent("webimage-serve-\(UUID().uuidString)").path
        self.cacheDirectory = cacheDirectory
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: try BuiltExecutables.path(of: "webimage"))
        process.arguments = withDefaultArguments
            ? ["serve", "--bind", "127.0.0.1", "--port", "0", "--allow-loopback", "--cache-dir", cacheDirectory, "--log-level", "error"] + arguments
            : ["serve"] + arguments
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        var text = ""
        let handle = output.fileHandleForReading
        while !text.contains("\n") {
            let chunk = handle.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        guard let match = text.firstMatch(of: /listening on http:\/\/127\.0\.0\.1:(\d+)/), let port = Int(match.output.1) else {
            process.terminate()
            throw ImageError.network("webimage serve did not start: \(text)")
        }
        self.process = process
        self.port = port
        self.client = LiveClient(port: port)
    }

    var isRunning: Bool { process.isRunning }

    /// Open file descriptors of the process.
    func openFileDescriptors() -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(process.processIdentifier)/fd").count) ?? -1
    }

    /// Resident memory of the process, in kilobytes.
    func residentKilobytes() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }) else { return -1 }
        return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") ?? -1
    }

    /// The value of a Prometheus sample (`name{labels}`) of `/metrics`, 0 when absent.
    func metric(_ sample: String) async throws -> Double {
        let text = try await client.get("/metrics").text
        for line in text.split(separator: "\n") where line.hasPrefix(sample + " ") {
            return Double(line.split(separator: " ").last ?? "") ?? 0
        }
        return 0
    }

    /// SIGTERM, wait for the exit, remove the cache directory unless `keepingCache`.
    func stop(keepingCache: Bool = false) {
        if process.isRunning {
            kill(process.processIdentifier, SIGTERM)
            process.waitUntilExit()
        }
        if !keepingCache { try? FileManager.default.removeItem(atPath: cacheDirectory) }
    }

    /// How the process ended, once it has: its exit status, or the signal that ended it.
    var termination: (reason: ChildProcess.TerminationReason, status: Int32)? {
        process.isRunning ? nil : (process.terminationReason, process.terminationStatus)
    }

    /// SIGKILL: the process dies wherever it is (mid-write included); the cache stays.
    func killHard() {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }
}
