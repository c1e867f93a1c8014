import Foundation
import WebImageLocking

/// Debian's tinyproxy, started by a test on 127.0.0.1 with a free port and a configuration
/// and log of its own in a temporary directory (`scripts/bootstrap` installs it).
///
///     let proxy = try await TinyproxyProcess.start()
///     ... send requests through 127.0.0.1:proxy.port ...
///     #expect(proxy.log.contains("CONNECT 127.0.0.1:\(origin.port)"))
///     proxy.stop()
package final class TinyproxyProcess: Sendable {
    /// The port it listens on (on 127.0.0.1).
    package let port: Int
    /// The process id while it runs; `nil` once it was stopped and reaped.
    private let pid: Locked<pid_t?>
    private let directory: URL
    private let logFile: URL

    private init(port: Int, pid: pid_t, directory: URL, logFile: URL) {
        self.port = port
        self.pid = Locked(pid)
        self.directory = directory
        self.logFile = logFile
    }

    deinit {
        stop()
    }

    /// Where tinyproxy is installed, or `nil` when it is not.
    package static var executable: String? {
        ["/usr/bin/tinyproxy", "/usr/sbin/tinyproxy", "/usr/local/bin/tinyproxy"].first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Starts tinyproxy; with `credentials`, it answers 407 to requests without them (basic auth).
    /// It allows `CONNECT` to any port.
    package static func start(credentials: (user: String, password: String)? = nil) async throws -> TinyproxyProcess {
        guard let executable else {
            throw TinyproxyError("tinyproxy is not installed: run scripts/bootstrap (it installs it with apt-get)")
        }
        var lastError: (any Error)?
        // A free port is picked, closed and handed to tinyproxy: another process may take it
        // in between, so a start that does not come up is tried again on another port.
        for _ in 0..<5 {
            let port = try freeLoopbackPort()
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tinyproxy-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let logFile = directory.appendingPathComponent("tinyproxy.log")
            var lines = [
                "Port \(port)", "Listen 127.0.0.1", "Timeout 60", "LogFile \"\(logFile.path)\"", "LogLevel Info",
                "MaxClients 100", "Allow 127.0.0.1",
            ]
            if let credentials { lines.append("BasicAuth \(credentials.user) \(credentials.password)") }
            let configFile = directory.appendingPathComponent("tinyproxy.conf")
            try (lines.joined(separator: "\n") + "\n").write(to: configFile, atomically: true, encoding: .utf8)
            let pid = try spawn(executable, arguments: ["-d", "-c", configFile.path])
            let proxy = TinyproxyProcess(port: port, pid: pid, directory: directory, logFile: logFile)
            if await proxy.waitUntilListening() { return proxy }
            proxy.stop()
            lastError = TinyproxyError("tinyproxy did not start on port \(port): \(proxy.log)")
        }
        throw lastError ?? TinyproxyError("tinyproxy did not start")
    }

    /// Everything tinyproxy logged so far (one `CONNECT host:port` line per tunnel it was asked for).
    package var log: String {
        (try? String(contentsOf: logFile, encoding: .utf8)) ?? ""
    }

    /// The `CONNECT` targets it was asked for, in order (`127.0.0.1:8080`).
    package var connectTargets: [String] {
        log.split(separator: "\n").compactMap { line in
            guard let range = line.range(of: "): CONNECT ") else { return nil }
            return line[range.upperBound...].split(separator: " ").first.map(String.init)
        }
    }

    /// Stops tinyproxy and removes its directory. Safe to call more than once.
    package func stop() {
        if let pid = pid.withLock({ pid in defer { pid = nil }; return pid }) {
            // SIGKILL: on SIGTERM tinyproxy waits for its connection threads, which a client's
            // idle keep-alive connection holds for the configured timeout.
            kill(pid, SIGKILL)
            var status: Int32 = 0
            while waitpid(pid, &status, 0) == -1, errno == EINTR {}
        }
        try? FileManager.default.removeItem(at: directory)
    }

    /// Whether the process has not exited.
    private var isRunning: Bool {
        guard let pid = pid.withLock({ $0 }) else { return false }
        var status: Int32 = 0
        return waitpid(pid, &status, WNOHANG) == 0
    }

    /// Starts `executable` with `arguments`, its standard output and error on /dev/null and
    /// no other descriptor of the test process.
    /// posix_spawn rather than Foundation's `Process`, whose `run()` on Linux reads
    /// `/proc/self/fd` past a buffer's end now and then and crashes the test process.
    private static func spawn(_ executable: String, arguments: [String]) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        // Nothing else of the test process: an inherited listening socket of a test origin
        // would keep accepting connections in tinyproxy after the origin closed it.
        closeInheritedDescriptors(in: &actions)
        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, executable, &actions, nil, argv, environ)
        guard result == 0 else { throw TinyproxyError("posix_spawn \(executable) failed: errno \(result)") }
        return pid
    }

    /// Adds a close of every descriptor from 3 up to `actions`: glibc's
    /// `posix_spawn_file_actions_addclosefrom_np` (looked up at run time: Swift does not
    /// import it), else one close per descriptor open now.
    private static func closeInheritedDescriptors(in actions: inout posix_spawn_file_actions_t) {
        typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
        if let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") {
            _ = unsafeBitCast(symbol, to: AddCloseFrom.self)(&actions, 3)
            return
        }
        let open = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        for fd in open.compactMap({ Int32($0) }) where fd >= 3 {
            posix_spawn_file_actions_addclose(&actions, fd)
        }
    }

    private func waitUntilListening() async -> Bool {
        for _ in 0..<200 {
            guard isRunning else { return false }
            if log.contains("Starting main loop"), loopbackAccepts(port: port) { return true }
            try? await Task.sleep(for: .milliseconds(25))
        }
        return false
    }
}

/// tinyproxy could not be started.
package struct TinyproxyError: Error, CustomStringConvertible {
    package let description: String
    package init(_ description: String) { self.description = description }
}
