import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// Sends batches of spans by OTLP/HTTP with the JSON encoding: a POST of an
/// `ExportTraceServiceRequest` to the traces URL with `Content-Type: application/json`.
public final class OTLPHTTPExporter: SpanExporter {
    /// Where batches are POSTed.
    public let url: URL
    private let headers: HTTPHeaders
    private let timeout: Duration
    private let encoder: OTLPJSONEncoder
    private let client: HTTPClient

    /// An exporter to `url` sending `headers` with every batch.
    public init(url: URL, headers: [(name: String, value: String)] = [], timeout: Duration = .seconds(10), encoder: OTLPJSONEncoder) {
        self.url = url
        var all = HTTPHeaders()
        for (name, value) in headers { all.add(name: name, value: value) }
        all.replaceOrAdd(name: "Content-Type", value: "application/json")
        self.headers = all
        self.timeout = timeout
        self.encoder = encoder
        var configuration = HTTPClient.Configuration()
        // The exporter's own requests are never traced.
        configuration.tracing.tracer = nil
        client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }

    /// The exporter ``TracingConfiguration`` describes.
    public convenience init(configuration: TracingConfiguration) {
        self.init(
            url: configuration.tracesURL, headers: configuration.headers, timeout: configuration.exportTimeout,
            encoder: OTLPJSONEncoder(serviceName: configuration.serviceName, resourceAttributes: configuration.resourceAttributes)
        )
    }

    /// POSTs `spans` as one export request; throws on a transport error or a status other than 2xx.
    public func export(_ spans: [FinishedSpan]) async throws {
        var request = HTTPClientRequest(url: url.absoluteString)
        request.method = .POST
        request.headers = headers
        request.body = .bytes(ByteBuffer(data: encoder.encode(spans)))
        let response = try await client.execute(request, timeout: TimeAmount(timeout))
        // The body is small (a partial-success note at most); it is read so the connection is reused.
        _ = try await response.body.collect(upTo: 1 << 20)
        guard (200..<300).contains(response.status.code) else { throw OTLPExportError(status: Int(response.status.code)) }
    }

    /// Shuts the exporter's HTTP client down.
    public func shutdown() async {
        try? await client.shutdown()
    }
}
