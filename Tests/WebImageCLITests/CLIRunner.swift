import Foundation
import Testing
import WebImageTestSupport

/// What one run of the built `webimage` printed and how it exited.
struct CLIResult {
    let status: Int32
    let stdoutData: Data
    let stderr: String

    var stdout: String { String(decoding: stdoutData, as: UTF8.self) }
    var stdoutLines: [String] { stdout.split(separator: "\n").map(String.init) }
    var stderrLines: [String] { stderr.split(separator: "\n").map(String.init) }

    /// Standard output as JSON Lines, one dictionary a line.
    func jsonLines() throws -> [[String: Any]] {
        try stdoutLines.map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "not a JSON object: \(line)")
        }
    }
}

/// A temporary home for the tool: `XDG_CACHE_HOME` and a working directory of its own,
/// removed by ``remove()``.
struct CLISandbox {
    let root: URL

    init() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root.appendingPathComponent("work"), withIntermediateDirectories: true)
    }

    /// `XDG_CACHE_HOME` for the runs.
    var cacheHome: String { root.appendingPathComponent("cache").path }
    /// The directory the cache's entries end up in.
    var cacheDirectory: String { cacheHome + "/webimage/default" }
    /// The runs' working directory.
    var workDirectory: String { root.appendingPathComponent("work").path }

    func path(_ name: String) -> String { workDirectory + "/" + name }

    /// Cache entry files now in the cache directory.
    var cacheFiles: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: cacheDirectory)) ?? []).filter { !$0.hasPrefix(".") }
    }

    func remove() {
        try? FileManager.default.removeItem(at: root)
    }

    /// Runs `webimage arguments…` with standard output and error going to files (so
    /// neither is a terminal), `stdin` on standard input, and waits for it to exit.
    /// `environmentChanges` sets (a value) or removes (`nil`) variables of the tool's environment.
    func run(_ arguments: [String], stdin: Data? = nil, environmentChanges: [String: String?] = [:]) async throws -> CLIResult {
        let binary = try BuiltExecutables.path(of: "webimage")
        let outPath = root.appendingPathComponent("stdout-\(UUID().uuidString)").path
        let errPath = root.appendingPathComponent("stderr-\(UUID().uuidString)").path
        _ = FileManager.default.createFile(atPath: outPath, contents: nil)
        _ = FileManager.default.createFile(atPath: errPath, contents: nil)
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: workDirectory)
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_CACHE_HOME"] = cacheHome
        // The test origin is on loopback: a proxy from the caller's environment is not for it.
        for name in ["http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "no_proxy", "NO_PROXY"] {
            environment[name] = nil
        }
        for (name, value) in environmentChanges { environment[name] = value }
        process.environment = environment
        let out = try FileHandle(forWritingTo: URL(fileURLWithPath: outPath))
        let err = try FileHandle(forWritingTo: URL(fileURLWithPath: errPath))
        process.standardOutput = out
        process.standardError = err
        let input = Pipe()
        process.standardInput = input
        let status: Int32 = try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
            do {
                try process.run()
            } catch {
                process.terminationHandler = nil
                continuation.resume(throwing: error)
                return
            }
            if let stdin { input.fileHandleForWriting.write(stdin) }
            try? input.fileHandleForWriting.close()
        }
        try out.close()
        try err.close()
        return CLIResult(
            status: status,
            stdoutData: try Data(contentsOf: URL(fileURLWithPath: outPath)),
            stderr: try String(contentsOfFile: errPath, encoding: .utf8)
        )
    }
}

/// Runs `body` with a fresh origin and sandbox, cleaning both up afterwards.
func withCLI(_ body: (TestOrigin, CLISandbox) async throws -> Void) async throws {
    let sandbox = try CLISandbox()
    defer { sandbox.remove() }
    try await TestOrigin.with { origin in
        try await body(origin, sandbox)
    }
}
