/// The Prometheus names of swift-metrics labels: Hummingbird's request metrics under the
/// proxy's own names and labels, every other label with the characters Prometheus does not
/// allow replaced by `_`.
///
/// | Hummingbird's metric | served as |
/// | --- | --- |
/// | `hb.requests` | `webimage_requests_total{status}` |
/// | `hb.request.errors` | `webimage_request_errors_total{status}` |
/// | `http.server.request.duration` | `webimage_request_duration_seconds` |
/// | `http.server.active_requests` | `webimage_in_flight_requests` |
///
/// Route and method are dropped: the proxy answers every path with one route, and a
/// Prometheus name keeps one set of labels.
enum PrometheusNames {
    /// The Prometheus name and labels of a swift-metrics `label` with `dimensions`.
    @Sendable
    static func prometheus(_ label: String, _ dimensions: [(String, String)]) -> (String, [(String, String)]) {
        func status(from key: String) -> [(String, String)] {
            dimensions.first { $0.0 == key }.map { [("status", $0.1)] } ?? []
        }
        switch label {
        case "hb.requests": return ("webimage_requests_total", status(from: "http.response.status_code"))
        case "hb.request.errors": return ("webimage_request_errors_total", status(from: "error.type"))
        case "http.server.request.duration": return ("webimage_request_duration_seconds", [])
        case "http.server.active_requests": return ("webimage_in_flight_requests", [])
        default: return (sanitized(label), dimensions.map { (sanitized($0.0), $0.1) })
        }
    }

    /// Whether `prefix` can start every metric's name: ASCII letters, digits and `_`, not
    /// starting with a digit or `_`.
    static func isPrefix(_ prefix: String) -> Bool {
        !prefix.isEmpty && sanitized(prefix) == prefix && prefix.first != "_"
    }

    /// `name` with every character but ASCII letters, digits and `_` replaced by `_`, and a
    /// leading digit prefixed with `_`.
    static func sanitized(_ name: String) -> String {
        var result = String(name.unicodeScalars.map { scalar -> Character in
            switch scalar.value {
            case 0x30...0x39, 0x41...0x5A, 0x61...0x7A, 0x5F: Character(scalar)
            default: "_"
            }
        })
        if let first = result.unicodeScalars.first, (0x30...0x39).contains(first.value) { result = "_" + result }
        return result
    }
}
