import Foundation

/// One request as the test origin received it (recorded once its last body byte arrived).
package struct TestOriginRequest: Sendable {
    /// The method, e.g. "GET".
    package let method: String
    /// The request target exactly as sent, e.g. "/a.png?x=1".
    package let uri: String
    /// The path without the query string, e.g. "/a.png" (routes match on this).
    package let path: String
    /// The query string without the "?" (nil when the target had none).
    package let query: String?
    /// The headers in the order sent; a name may appear several times.
    package let headers: [(String, String)]
    /// The request body (empty when none was sent).
    package let body: Data
    /// The request's HTTP version, e.g. "HTTP/1.1".
    package let httpVersion: String
    /// Identifies the TCP connection the request came on (1, 2, … in accept order).
    /// Two requests with the same id reused one connection (keep-alive).
    package let connectionID: Int
    /// 1 for the first request to this path since start or `resetCounters()`, 2 for the next, …
    package var ordinal: Int

    package init(
        method: String,
        uri: String,
        headers: [(String, String)],
        body: Data,
        httpVersion: String,
        connectionID: Int,
        ordinal: Int = 0
    ) {
        self.method = method
        self.uri = uri
        let (path, query) = TestOriginRequest.split(uri)
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
        self.httpVersion = httpVersion
        self.connectionID = connectionID
        self.ordinal = ordinal
    }

    /// The first value of the header `name` (case-insensitive), or nil.
    package func header(_ name: String) -> String? {
        headers.first { $0.0.caseInsensitiveCompare(name) == .orderedSame }?.1
    }

    /// Every value of the header `name` (case-insensitive), in the order sent.
    package func headerValues(_ name: String) -> [String] {
        headers.filter { $0.0.caseInsensitiveCompare(name) == .orderedSame }.map(\.1)
    }

    /// The query string parsed into items (empty when there is none).
    package var queryItems: [URLQueryItem] {
        guard let query else { return [] }
        var components = URLComponents()
        components.percentEncodedQuery = query
        return components.queryItems ?? []
    }

    /// The value of the first query item called `name`, or nil.
    package func queryValue(_ name: String) -> String? {
        queryItems.first { $0.name == name }?.value
    }

    /// Splits a request target into its path and query (an absolute-form target keeps only its path).
    package static func split(_ uri: String) -> (path: String, query: String?) {
        var target = Substring(uri)
        if let fragment = target.firstIndex(of: "#") {
            target = target[..<fragment]
        }
        if let scheme = target.range(of: "://"), target[..<scheme.lowerBound].allSatisfy({ $0.isLetter }) {
            let afterAuthority = target[scheme.upperBound...]
            if let slash = afterAuthority.firstIndex(where: { $0 == "/" || $0 == "?" }) {
                target = afterAuthority[slash...]
            } else {
                target = "/"
            }
        }
        if let mark = target.firstIndex(of: "?") {
            var path = String(target[..<mark])
            if path.isEmpty { path = "/" }
            return (path, String(target[target.index(after: mark)...]))
        }
        return (target.isEmpty ? "/" : String(target), nil)
    }
}
