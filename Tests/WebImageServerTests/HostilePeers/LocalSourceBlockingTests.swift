import Foundation
import Testing
@testable import WebImage
@testable import WebImageServer
import WebImageTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// Files under the local root that would block whoever opens or reads them.
@Suite("Hostile peers: local files that block")
struct LocalSourceBlockingTests {
    /// A process holding a write lease on `path`: an open of the file by anyone else blocks
    /// (for the kernel's lease-break time, 45 s by default) unless it does not wait.
    final class LeaseHolder: Sendable {
        let process: ChildProcess
        let input: Pipe

        init(path: String) throws {
            let process = ChildProcess()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            let script = """
            import fcntl, os, signal, sys
            signal.signal(signal.SIGIO, signal.SIG_IGN)
            fd = os.open(sys.argv[1], os.O_RDONLY)
            fcntl.fcntl(fd, 1024, fcntl.F_WRLCK)
            print("held", flush=True)
            sys.stdin.read()
            """
            process.arguments = ["python3", "-c", script, path]
            let input = Pipe(), output = Pipe()
            process.standardInput = input
            process.standardOutput = output
            try process.run()
            self.process = process
            self.input = input
            // The lease is held once the line arrives.
            _ = output.fileHandleForReading.availableData
        }

        func release() {
            try? input.fileHandleForWriting.close()
            process.waitUntilExit()
        }
    }

    // SPEC HP4
    @Test("HP4 a FIFO and a file whose open would block, under the local root, block no other request", .timeLimit(.minutes(3)))
    func blockingFilesBlockNothing() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-hp4-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        try ProxyImages.jpeg.write(to: URL(fileURLWithPath: root + "/photo.jpg"))
        try ProxyImages.jpeg.write(to: URL(fileURLWithPath: root + "/leased.jpg"))
        #expect(mkfifo(root + "/pipe.jpg", 0o644) == 0)
        let lease = try LeaseHolder(path: root + "/leased.jpg")
        defer { lease.release() }

        try await TestProxy.with(configure: { $0.sources.localFilesystemRoot = root }) { origin, proxy in
            origin.register("/remote.jpg", .image(ProxyImages.jpeg, contentType: "image/jpeg"))
            // More of each than the file threads, all at once: none may hold a thread.
            let blocking = (0..<12).map { index in
                Task { () throws -> Int in
                    let file = index.isMultiple(of: 2) ? "pipe.jpg" : "leased.jpg"
                    return try await proxy.get("/insecure/rs:fit:\(10 + index):10/plain/local:///\(file)", timeout: .seconds(60)).status
                }
            }
            // A FIFO is no regular file: 404, at once, without waiting for a writer.
            let fifo = try await proxy.get("/insecure/plain/local:///pipe.jpg", timeout: .seconds(60))
            #expect(fifo.status == 404 && fifo.text.contains("not a regular file"), "\(fifo.text)")
            // A file another process holds: refused at once rather than waited for.
            let leased = try await proxy.get("/insecure/plain/local:///leased.jpg", timeout: .seconds(60))
            #expect(leased.status == 403, "\(leased.text)")
            #expect(try await proxy.get("/insecure/rs:fit:30:30/plain/local:///photo.jpg", timeout: .seconds(60)).status == 200)
            #expect(try await proxy.get("/insecure/rs:fit:30:30/plain/\(origin.url("/remote.jpg").absoluteString)", timeout: .seconds(60)).status == 200)
            for (index, task) in blocking.enumerated() {
                #expect(try await task.value == (index.isMultiple(of: 2) ? 404 : 403))
            }
        }
    }
}
