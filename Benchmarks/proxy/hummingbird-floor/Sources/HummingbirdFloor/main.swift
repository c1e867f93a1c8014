import CFloorVips
import FloorOrcLock
import Foundation
import Hummingbird
import Logging
import NIOCore
import NIOPosix
import Synchronization

// hummingbird-floor FILE PORT: answers every GET and HEAD with FILE's bytes and the header
// fields `webimage serve` sends with a cached JPEG variant, from one router route and no
// middleware.
//
// hummingbird-floor --cold PORT THREADS WIDTH HEIGHT QUALITY PHOTO_DIR CACHE_DIR: lean_server.c
// on Hummingbird. A GET whose path holds `/photos/NAME` (NAME ends at `/`, `?`, `%` or the
// end) makes the WIDTH×HEIGHT fit of PHOTO_DIR/NAME on a thread pool of THREADS threads, as
// the proxy's work slots make it: the file read, the proxy's libvips calls and the variant's
// file written to CACHE_DIR (../proxy_sequence.h, variant_with_files), then answers the JPEG
// (Content-Type and Content-Length). A missing photo answers 404, a failed variant 500.
// `GET /count` answers the number of variants made so far, as text.
//
// With FLOOR_EVENT_LOOPS=1, Swift concurrency runs on NIO's event loops.

/// The variants made so far.
final class Made: Sendable {
    private let count = Mutex(0)
    var current: Int { count.withLock { $0 } }
    /// Counts one more and returns its number.
    func next() -> Int {
        count.withLock { count in
            count += 1
            return count
        }
    }
}

let arguments = Array(CommandLine.arguments.dropFirst())
if ProcessInfo.processInfo.environment["FLOOR_EVENT_LOOPS"] == "1" {
    _ = NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()
}
let router = Router()
let port: Int
if arguments.first == "--cold" {
    guard arguments.count == 8, let listenPort = Int(arguments[1]), let threads = Int(arguments[2]),
          let width = Int32(arguments[3]), let height = Int32(arguments[4]), let quality = Int32(arguments[5]) else {
        FileHandle.standardError.write(Data("usage: hummingbird-floor --cold PORT THREADS WIDTH HEIGHT QUALITY PHOTO_DIR CACHE_DIR\n".utf8))
        exit(64)
    }
    port = listenPort
    let (photos, cache) = (arguments[6], arguments[7])
    setup_libvips_as_webimage("hummingbird-floor")
    guard webimage_orc_code_lock_installed() == 1 else {
        FileHandle.standardError.write(Data("hummingbird-floor: the orc code lock is not installed\n".utf8))
        exit(70)
    }
    let pool = NIOThreadPool(numberOfThreads: threads)
    pool.start()
    let made = Made()
    router.get("/count") { _, _ in "\(made.current)\n" }
    router.get("**") { request, _ -> Response in
        let path = request.uri.path
        guard let start = path.range(of: "/photos/")?.upperBound else { return Response(status: .notFound) }
        let name = path[start...].prefix { !"/?%".contains($0) }
        guard !name.isEmpty, name != "..", FileManager.default.isReadableFile(atPath: photos + "/" + name) else {
            return Response(status: .notFound)
        }
        let source = photos + "/" + name, output = cache + "/v\(made.next())"
        let jpeg = try await pool.runIfActive { () -> ByteBuffer? in
            var bytes: UnsafeMutableRawPointer?
            var length = 0
            guard variant_with_files(source, output, width, height, quality, &bytes, &length) == 0, let bytes else {
                FileHandle.standardError.write(Data("hummingbird-floor: \(output): \(String(cString: vips_error_buffer()))\n".utf8))
                return nil
            }
            defer { g_free(bytes) }
            return ByteBuffer(bytes: UnsafeRawBufferPointer(start: bytes, count: length))
        }
        guard let jpeg else { return Response(status: .internalServerError) }
        return Response(
            status: .ok, headers: [.contentType: "image/jpeg", .contentLength: String(jpeg.readableBytes)],
            body: ResponseBody(byteBuffer: jpeg)
        )
    }
} else {
    guard arguments.count == 2, let bytes = FileManager.default.contents(atPath: arguments[0]), let listenPort = Int(arguments[1]) else {
        FileHandle.standardError.write(Data("usage: hummingbird-floor FILE PORT\n".utf8))
        exit(64)
    }
    port = listenPort
    let body = ByteBuffer(bytes: bytes)
    var headers = HTTPFields()
    headers[.contentType] = "image/jpeg"
    headers[.cacheControl] = "public, max-age=31536000"
    headers[.eTag] = "\"0123456789abcdef0123456789abcdef\""
    headers[.lastModified] = "Sat, 28 Nov 2026 04:00:00 GMT"
    headers[.contentDisposition] = "inline; filename=\"photo.jpg\""
    headers[.contentSecurityPolicy] = "default-src 'none'; style-src 'unsafe-inline'; sandbox"
    headers[.xContentTypeOptions] = "nosniff"
    headers[.contentLength] = String(bytes.count)
    let fields = headers
    router.get("**") { _, _ in Response(status: .ok, headers: fields, body: ResponseBody(byteBuffer: body)) }
}
let app = Application(
    router: router,
    configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: port)),
    logger: Logger(label: "hummingbird-floor")
)
try await app.runService()
