import Foundation
import NIOHTTP1

extension CacheMetadata {
    /// The validators and freshness a response declares at `now`: `ETag`, `Last-Modified`,
    /// and an expiry from `Cache-Control` (`no-cache` or `no-store`: now; else `s-maxage`,
    /// else `max-age`), else `Expires`; the `Cache-Control` and `Expires` themselves are
    /// kept as they were sent.
    init(response head: DownloadResponseHead, now: Date = Date()) {
        let headers = head.headers
        let cacheControl = headers["cache-control"]
        let expires = headers.first(name: "expires")
        let joined = cacheControl.isEmpty ? nil : cacheControl.joined(separator: ", ")
        var expiration: Date?
        if let joined {
            let control = CacheControl(joined)
            if control.contains("no-cache") || control.contains("no-store") {
                expiration = now
            } else if let seconds = control.seconds(of: "s-maxage") ?? control.seconds(of: "max-age") {
                expiration = now.addingTimeInterval(seconds)
            }
        }
        if expiration == nil, let expires {
            // An `Expires` that is not a date (`0`, `-1`) means already expired.
            expiration = HTTPDate.date(from: expires) ?? now
        }
        self.init(
            etag: headers.first(name: "etag"),
            lastModified: headers.first(name: "last-modified"),
            expirationDate: expiration,
            storedDate: now,
            cacheControl: joined,
            expires: expires
        )
    }
}
