import Foundation
import NIOHTTP1

/// An outgoing request as a request modifier sees it.
///
/// The method and body a modifier sets hold for that hop; a redirect keeps them on 307 and
/// 308 and turns them into a `GET` without a body on 301, 302 and 303 (as browsers do), and
/// the modifier sees the redirected request again.
public struct DownloadRequest: Sendable {
    /// The URL to fetch.
    public var url: URL
    /// The headers to send.
    public var headers: HTTPHeaders
    /// The method. Default `GET`.
    public var method: HTTPMethod
    /// The body to send, e.g. the form or JSON of a `POST`; `nil` sends none. Set a
    /// `Content-Type` header to go with it.
    public var body: Data?

    /// Creates a request description.
    public init(url: URL, headers: HTTPHeaders, method: HTTPMethod = .GET, body: Data? = nil) {
        self.url = url
        self.headers = headers
        self.method = method
        self.body = body
    }
}

/// A response head as a response modifier and a decryptor see it.
public struct DownloadResponseHead: Sendable {
    /// The URL that answered (after redirects).
    public var url: URL
    /// The HTTP status code.
    public var statusCode: Int
    /// The response headers.
    public var headers: HTTPHeaders

    /// Creates a response description.
    public init(url: URL, statusCode: Int, headers: HTTPHeaders) {
        self.url = url
        self.statusCode = statusCode
        self.headers = headers
    }

    /// The media type without parameters, lower-cased (`image/png`), if the server sent one.
    public var mediaType: String? {
        headers.first(name: "content-type").map {
            Self.trimmed($0.split(separator: ";", maxSplits: 1).first ?? "").lowercased()
        }
    }

    /// The declared body length, if the server sent a valid `Content-Length`.
    public var contentLength: Int? {
        // Asked once per download: plain digits (the usual form) parse without trimming.
        guard let value = headers.first(name: "content-length"), let length = Int(value) ?? Int(Self.trimmed(value[...])),
              length >= 0
        else { return nil }
        return length
    }

    /// `text` without leading and trailing spaces and tabs (HTTP's optional whitespace),
    /// without Foundation's `CharacterSet` machinery.
    private static func trimmed(_ text: Substring) -> Substring {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = text.firstIndex(where: { !isSpace($0) }), let last = text.lastIndex(where: { !isSpace($0) }) else {
            return ""
        }
        return text[first...last]
    }
}

/// Changes a request before it is sent; returning `nil` cancels the download with
/// ``ImageError/invalidDownloadOperation(_:)``.
public typealias RequestModifier = @Sendable (DownloadRequest) async -> DownloadRequest?

/// Changes a response head before it is checked; returning `nil` fails the download with
/// ``ImageError/invalidResponse(_:)``.
public typealias ResponseModifier = @Sendable (DownloadResponseHead) -> DownloadResponseHead?

/// Turns the downloaded bytes into image bytes (decryption, unwrapping); returning `nil`
/// fails the download with ``ImageError/badImageData(_:)``.
public typealias Decryptor = @Sendable (Data, DownloadResponseHead) -> Data?

/// How far a download has come.
public struct DownloadProgress: Sendable, Equatable {
    /// Body bytes received so far.
    public var receivedBytes: Int
    /// The body length the server declared, when it declared one.
    public var expectedBytes: Int?
    /// Everything received so far, when the caller asked for partial data (progressive loading).
    public var partialData: Data?

    /// Creates a progress report.
    public init(receivedBytes: Int, expectedBytes: Int?, partialData: Data? = nil) {
        self.receivedBytes = receivedBytes
        self.expectedBytes = expectedBytes
        self.partialData = partialData
    }
}

/// A finished download.
public struct DownloadResponse: Sendable {
    /// The body (after the decryptor, if any).
    public var data: Data
    /// The final response head (after redirects and the response modifier).
    public var head: DownloadResponseHead
    /// How the download went (``DownloadMetrics``); `nil` from a loader that does not
    /// measure it (a file, a data URL, bytes in memory).
    public var metrics: DownloadMetrics?
    /// The body's bytes as received, before a decryptor.
    var receivedBytes: Int

    /// Creates a download result.
    public init(data: Data, head: DownloadResponseHead, metrics: DownloadMetrics? = nil) {
        self.data = data
        self.head = head
        self.metrics = metrics
        receivedBytes = data.count
    }

    /// The response of a loader that has all of `data` at once (a file, a data URL, bytes
    /// in memory): `progress` is told once, with every byte (and them as partial data when
    /// `options` asks for it), and the head is a 200 with `Content-Length` and, when given,
    /// `Content-Type`.
    public static func whole(
        _ data: Data, from url: URL, mediaType: String? = nil, options: DownloadOptions,
        progress: (@Sendable (DownloadProgress) -> Void)?
    ) -> DownloadResponse {
        progress?(DownloadProgress(receivedBytes: data.count, expectedBytes: data.count, partialData: options.wantsPartialData ? data : nil))
        var headers: HTTPHeaders = ["Content-Length": String(data.count)]
        if let mediaType { headers.add(name: "Content-Type", value: mediaType) }
        return DownloadResponse(data: data, head: DownloadResponseHead(url: url, statusCode: 200, headers: headers))
    }
}
