import Foundation
import WebImageServer

/// URL-safe base64 without padding, as imgproxy URL builders encode sources.
func base64URL(_ text: String) -> String {
    Data(text.utf8).base64EncodedString()
        .replacingOccurrences(of: "+", with: "-")
        .replacingOccurrences(of: "/", with: "_")
        .replacingOccurrences(of: "=", with: "")
}

/// Parses `path` with an unsigned parser, returning the error instead of throwing it.
func parseError(_ path: String, parser: ProxyURLParser = ProxyURLParser(keys: [])) -> ProxyError? {
    do {
        _ = try parser.parse(path: path)
        return nil
    } catch {
        return error
    }
}
