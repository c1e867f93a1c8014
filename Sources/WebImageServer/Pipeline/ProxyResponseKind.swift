/// What a proxy request answers with.
enum ProxyResponseKind: Sendable, Hashable {
    /// The processed image (`/<signature>/<options>/<source>`).
    case image
    /// The source's details as JSON (`/info/<signature>/<options>/<source>`).
    case info
    /// The processed image's ThumbHash as base64 text (`format:thumbhash`).
    case thumbHash

    /// The path prefix of info requests.
    static let infoPrefix = "/info/"

    /// The kind a path and its parsed options ask for.
    static func of(path: String, options: ProcessingOptions) -> ProxyResponseKind {
        if path.hasPrefix(infoPrefix) { return .info }
        return options.thumbHash ? .thumbHash : .image
    }

    /// The `Content-Type` of the answer; `nil`: the image's own.
    var contentType: String? {
        switch self {
        case .image: nil
        case .info: "application/json"
        case .thumbHash: "text/plain; charset=utf-8"
        }
    }
}
