import Foundation

/// What a GCS JSON API error body (`{"error": {"code": 404, "message": "No such object: …",
/// "errors": [{"reason": "notFound", …}]}}`) says went wrong, or the start of a body that is
/// not one (a plain-text answer).
struct GCSErrorDocument: Sendable, Equatable {
    /// GCS's explanation, or the body's text.
    var message: String?
    /// The first error's reason, e.g. `notFound`, `forbidden`, `authError`.
    var reason: String?

    /// Reads the fields from `body`; those absent stay `nil`.
    init(_ body: Data) {
        if let document = try? JSONDecoder().decode(Body.self, from: body) {
            message = document.error?.message
            reason = document.error?.errors?.first?.reason
        } else {
            let text = String(decoding: body.prefix(300), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            message = text.isEmpty ? nil : text
        }
    }

    /// `reason: message`, or what of it there is; `nil` when there is neither.
    var summary: String? {
        switch (reason, message) {
        case let (reason?, message?): "\(reason): \(message)"
        case let (reason?, nil): reason
        case let (nil, message?): message
        case (nil, nil): nil
        }
    }

    private struct Body: Decodable {
        struct Failure: Decodable {
            struct Item: Decodable { var reason: String? }
            var message: String?
            var errors: [Item]?
        }
        var error: Failure?
    }
}
