import Foundation
import NIOHTTP1

extension CacheMetadata {
    /// The validators and freshness a response declares: `ETag`, `Last-Modified`, and an
    /// expiry from `Cache-Control: max-age` (or `s-maxage`), else `Expires`; the
    /// `Cache-Control` and `Expires` themselves are kept as they were sent.
    init(response head: DownloadResponseHead, now: Date = Date()) {
        let headers = head.headers
        let cacheControl = headers["cache-control"]
        let expires = headers.first(name: "expires")
        var expiration: Date?
        let directives = cacheControl.flatMap { $0.split(separator: ",") }.map {
            $0.trimmingCharacters(in: .whitespaces).lowercased()
        }
        for directive in directives {
            for prefix in ["s-maxage=", "max-age="] where directive.hasPrefix(prefix) {
                if let seconds = TimeInterval(directive.dropFirst(prefix.count)) {
                    expiration = now.addingTimeInterval(max(0, seconds))
                }
            }
            if directive == "no-cache" || directive == "no-store" { expiration = now }
        }
        if expiration == nil, let expires {
            expiration = HTTPDate.date(from: expires)
        }
        self.init(
            etag: headers.first(name: "etag"),
            lastModified: headers.first(name: "last-modified"),
            expirationDate: expiration,
            storedDate: now,
            cacheControl: cacheControl.isEmpty ? nil : cacheControl.joined(separator: ", "),
            expires: expires
        )
    }
}
