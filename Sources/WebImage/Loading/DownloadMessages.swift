import Foundation
import NIOHTTP1

/// An outgoing request as a request modifier sees it.
public struct DownloadRequest: Sendable {
    /// The URL to fetch.
    public var url: URL
    /// The headers to send.
    public var headers: HTTPHeaders

    /// Creates a request description.
    public init(url: URL, headers: HTTPHeaders) {
        self.url = url
        self.headers = headers
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
            $0.split(separator: ";", maxSplits: 1)[0].trimmingCharacters(in: .whitespaces).lowercased()
        }
    }

    /// The declared body length, if the server sent a valid `Content-Length`.
    public var contentLength: Int? {
        headers.first(name: "content-length").flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
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

    /// Creates a download result.
    public init(data: Data, head: DownloadResponseHead) {
        self.data = data
        self.head = head
    }
}
