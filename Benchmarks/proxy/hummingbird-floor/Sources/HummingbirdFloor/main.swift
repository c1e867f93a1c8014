import Foundation
import Hummingbird
import Logging
import NIOCore
import NIOPosix

// hummingbird-floor FILE PORT: answers every GET and HEAD with FILE's bytes and the header
// fields `webimage serve` sends with a cached JPEG variant, from one router route and no
// middleware. With FLOOR_EVENT_LOOPS=1, Swift concurrency runs on NIO's event loops.
let arguments = CommandLine.arguments
guard arguments.count == 3, let bytes = FileManager.default.contents(atPath: arguments[1]), let port = Int(arguments[2]) else {
    FileHandle.standardError.write(Data("usage: hummingbird-floor FILE PORT\n".utf8))
    exit(64)
}
if ProcessInfo.processInfo.environment["FLOOR_EVENT_LOOPS"] == "1" {
    _ = NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()
}
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

let router = Router()
router.get("**") { _, _ in Response(status: .ok, headers: fields, body: ResponseBody(byteBuffer: body)) }
let app = Application(
    router: router,
    configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: port)),
    logger: Logger(label: "hummingbird-floor")
)
try await app.runService()
