import Foundation
import FoundationNetworking
import WebImageLocking

/// An in-memory cookie store for the downloader's `handleCookies` option.
///
/// `HTTPCookie` parses `Set-Cookie` and formats `Cookie`; the jar keeps cookies per
/// process only (`HTTPCookieStorage` on Linux persists to disk, which a server must not
/// do behind its operator's back) and applies the domain, path, secure and expiry rules.
final class CookieJar: Sendable {
    private struct StoredCookie: @unchecked Sendable {
        // HTTPCookie is immutable; it is not marked Sendable on Linux.
        let cookie: HTTPCookie
    }

    private let cookies = Locked<[String: StoredCookie]>([:])

    /// Stores the cookies `headers` set for `url`.
    func store(setCookieHeaders headers: [String], for url: URL) {
        guard !headers.isEmpty else { return }
        var parsed: [HTTPCookie] = []
        for header in headers {
            parsed += HTTPCookie.cookies(withResponseHeaderFields: ["Set-Cookie": header], for: url)
        }
        let now = Date()
        cookies.withLock { cookies in
            for cookie in parsed {
                let id = "\(cookie.domain.lowercased())|\(cookie.path)|\(cookie.name)"
                if let expires = cookie.expiresDate, expires <= now {
                    cookies.removeValue(forKey: id)
                } else {
                    cookies[id] = StoredCookie(cookie: cookie)
                }
            }
        }
    }

    /// The `Cookie` header value for a request to `url`, if any cookie applies.
    func header(for url: URL) -> String? {
        guard let host = url.host?.lowercased() else { return nil }
        let path = url.path.isEmpty ? "/" : url.path
        let secure = url.scheme?.lowercased() == "https"
        let now = Date()
        let matching = cookies.withLock { cookies in
            cookies.values.map(\.cookie).filter { cookie in
                if let expires = cookie.expiresDate, expires <= now { return false }
                if cookie.isSecure && !secure { return false }
                guard Self.domain(cookie.domain, matches: host) else { return false }
                return path.hasPrefix(cookie.path) || cookie.path == "/"
            }
        }
        guard !matching.isEmpty else { return nil }
        return matching.sorted { $0.path.count > $1.path.count }.map { "\($0.name)=\($0.value)" }.joined(separator: "; ")
    }

    private static func domain(_ cookieDomain: String, matches host: String) -> Bool {
        let domain = cookieDomain.lowercased()
        if domain.hasPrefix(".") {
            let bare = String(domain.dropFirst())
            return host == bare || host.hasSuffix(domain)
        }
        return host == domain
    }
}
