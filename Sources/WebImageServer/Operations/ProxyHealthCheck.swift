import AsyncHTTPClient
import Foundation
import NIOCore
import WebImage

/// Asks a running proxy whether it is up, as a container's health check does
/// (`webimage health`): `GET /health` answered 200.
public enum ProxyHealthCheck {
    /// What the proxy answered.
    public struct Answer: Sendable, Equatable {
        /// The URL asked.
        public let url: String
        /// The response's status.
        public let status: Int
        /// The response's body as text (at most 1 KiB of it).
        public let body: String

        /// Whether the proxy is up: it answered 200.
        public var isHealthy: Bool { status == 200 }
    }

    /// The health check's URL on the server `listen` configures: its address (the loopback
    /// address when it listens on every interface), its port and its path prefix.
    public static func url(for listen: ServerConfig.Listen) -> String {
        let host: String = switch listen.host {
        case "0.0.0.0", "": "127.0.0.1"
        case "::": "[::1]"
        case let address where address.contains(":"): "[\(address)]"
        case let address: address
        }
        return "http://\(host):\(listen.port)\(listen.pathPrefix ?? "")/health"
    }

    /// `text` as the URL to ask: a URL naming only a server (`http://127.0.0.1:8080`) gets
    /// `/health`; one with a path is asked as it is.
    /// - Throws: ``ImageError/invalidURL(_:)`` when `text` is not an http(s) URL.
    public static func url(from text: String) throws(ImageError) -> String {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme), url.host != nil else {
            throw .invalidURL("'\(text)' is not an http(s) URL of a running proxy, e.g. http://127.0.0.1:8080")
        }
        guard url.path.isEmpty || url.path == "/" else { return text }
        return (text.hasSuffix("/") ? String(text.dropLast()) : text) + "/health"
    }

    /// Asks `url`, waiting at most `timeout` for the whole answer.
    /// - Throws: ``ImageError/network(_:)`` when no answer comes: the connection is refused,
    ///   or the time is up.
    public static func check(_ url: String, timeout: Duration = .seconds(5)) async throws(ImageError) -> Answer {
        do {
            var request = HTTPClientRequest(url: url)
            request.method = .GET
            let response = try await HTTPClient.shared.execute(request, timeout: .nanoseconds(Int64(timeout / .nanoseconds(1))))
            let body = try await response.body.collect(upTo: 1024 * 1024)
            return Answer(url: url, status: Int(response.status.code), body: String(String(buffer: body).prefix(1024)))
        } catch {
            throw .network("\(url): no answer (\(error))")
        }
    }
}
