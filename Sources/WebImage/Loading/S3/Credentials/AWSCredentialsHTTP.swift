import AsyncHTTPClient
import Foundation
import NIOCore
import NIOFoundationCompat
import NIOHTTP1
import NIOPosix

/// The HTTP requests credential providers make (STS, the container and instance metadata
/// endpoints): straight to the endpoint, with a deadline, never through an image
/// downloader, whose source guard would rightly refuse the link-local metadata addresses.
struct AWSCredentialsHTTP: Sendable {
    /// An answer: its status and up to ``maxBodySize`` bytes of its body.
    struct Response: Sendable {
        var status: Int
        var body: Data

        /// The body as text.
        var text: String { String(decoding: body, as: UTF8.self) }
    }

    /// The largest body read; credential documents are a few kilobytes.
    static let maxBodySize = 1 << 20

    /// The client requests go through.
    let client: HTTPClient

    init(client: HTTPClient = Self.sharedClient) {
        self.client = client
    }

    /// The client of every credential request, for the life of the process: it follows no
    /// redirect, so that an answer pointing elsewhere cannot take a token there.
    static let sharedClient = HTTPClient(
        eventLoopGroup: MultiThreadedEventLoopGroup.singleton, configuration: HTTPClient.Configuration(redirectConfiguration: .disallow)
    )

    /// Sends one request and reads its answer within `timeout`.
    /// - Parameter what: the source, for the error (`"the EC2 instance metadata service"`).
    /// - Throws: ``ImageError/credentialsUnavailable(_:)`` when it cannot be sent or answered in time.
    func send(
        _ method: HTTPMethod, _ url: URL, headers: [(String, String)] = [], body: Data? = nil, timeout: Duration, what: String
    ) async throws(ImageError) -> Response {
        var request = HTTPClientRequest(url: url.absoluteString)
        request.method = method
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let body { request.body = .bytes(ByteBuffer(bytes: body)) }
        let seconds = timeout.timeInterval
        do {
            let response = try await client.execute(request, timeout: .nanoseconds(Int64(seconds * 1e9)))
            let buffer = try await response.body.collect(upTo: Self.maxBodySize)
            return Response(status: Int(response.status.code), body: Data(buffer: buffer))
        } catch let error as HTTPClientError where error == .deadlineExceeded || error == .connectTimeout || error == .readTimeout {
            throw .credentialsUnavailable("\(what) at \(Self.endpoint(of: url)) did not answer within \(seconds) s")
        } catch {
            throw .credentialsUnavailable("\(what) at \(Self.endpoint(of: url)) could not be reached: \(error)")
        }
    }

    /// `scheme://host:port` of `url`, without path or query, which may carry tokens.
    static func endpoint(of url: URL) -> String {
        var components = URLComponents()
        components.scheme = url.scheme
        components.host = url.host
        components.port = url.port
        return components.string ?? url.absoluteString
    }
}
