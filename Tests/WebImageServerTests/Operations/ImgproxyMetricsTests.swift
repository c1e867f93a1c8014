import AsyncHTTPClient
import Foundation
import Testing
@testable import WebImage
@testable import WebImageServer
import WebImageTestSupport

/// Under imgproxy's profile, `/metrics` serves imgproxy's series (its monitoring/prometheus
/// package: names, labels, buckets and namespace rule) and only on `IMGPROXY_PROMETHEUS_BIND`;
/// probes and scrapes are not requests, in either profile.
@Suite("imgproxy's Prometheus series")
struct ImgproxyMetricsTests {
    /// The series of imgproxy v4 and the histograms v3 adds, with the label values a
    /// dashboard selects on.
    static let imgproxyNames = [
        "requests_total", "status_codes_total", "errors_total", "request_duration_seconds_bucket",
        "request_span_duration_seconds_bucket", "workers", "requests_in_progress", "images_in_progress",
        "workers_utilization", "vips_memory_bytes", "vips_max_memory_bytes", "vips_allocs",
        "download_duration_seconds_bucket", "processing_duration_seconds_bucket", "buffer_size_bytes_bucket",
    ]

    /// The page of the metrics listener at `port`.
    private static func scrape(_ port: Int) async throws -> String {
        let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: "http://127.0.0.1:\(port)/metrics"), timeout: .seconds(30))
        #expect(response.status == .ok)
        return String(buffer: try await response.body.collect(upTo: 1 << 20))
    }

    /// The value of `sample` (`name{labels}`) on `page`; `nil` when it is absent.
    private static func value(_ sample: String, in page: String) -> Double? {
        page.split(separator: "\n").first { $0.hasPrefix(sample + " ") }.flatMap { Double($0.split(separator: " ").last ?? "") }
    }

    @Test("a scrape on the bind shows imgproxy's names: requests, statuses, errors by category, spans, workers, libvips' memory")
    func imgproxyNamesOnTheBind() async throws {
        let metricsPort = try freeLoopbackPort()
        try await TestProxy.with(transport: .socket, configure: {
            $0.profile = .imgproxy
            $0.operations.prometheusBind = "127.0.0.1:\(metricsPort)"
        }) { (origin, proxy) async throws in
            origin.register("/photo.jpg", .image(ProxyImages.jpeg))
            #expect(try await proxy.get(proxyPath("rs:fit:40:40", source: origin.url("/photo.jpg"), extension: "png")).status == 200)
            #expect(try await proxy.get(proxyPath("rs:fit:40:40", source: origin.url("/photo.jpg"), extension: "png")).status == 200)
            #expect(try await proxy.get("/unsigned-nonsense").status == 404)
            #expect(try await proxy.get(proxyPath("", source: origin.url("/missing.jpg"))).status == 404)
            // Probes are not requests.
            for _ in 0..<3 { #expect(try await proxy.get("/health").status == 200) }
            #expect(try await proxy.get("/").status == 200)
            // Under imgproxy's profile /metrics is only on the bind: here it is a proxy path, a
            // request like any other (a malformed one).
            #expect(try await proxy.get("/metrics").status == 404)

            let page = try await Self.scrape(metricsPort)
            for name in Self.imgproxyNames {
                #expect(page.contains("\n\(name)") || page.hasPrefix(name), "\(name) missing")
            }
            #expect(Self.value("requests_total", in: page) == 5)
            #expect(Self.value("status_codes_total{status=\"200\"}", in: page) == 2)
            #expect(Self.value("status_codes_total{status=\"404\"}", in: page) == 3)
            #expect(Self.value("errors_total{type=\"path_parsing\"}", in: page) == 2)
            #expect(Self.value("errors_total{type=\"download\"}", in: page) == 1)
            #expect(Self.value("request_duration_seconds_count", in: page) == 5)
            // One variant made (the second request was a memory hit): one of each span.
            for span in ["queue", "downloading_source_image", "processing_image"] {
                #expect(Self.value("request_span_duration_seconds_count{span=\"\(span)\"}", in: page) == 1, "\(span)")
            }
            #expect(Self.value("buffer_size_bytes_count{type=\"download\"}", in: page) == 1)
            #expect(Self.value("buffer_size_bytes_sum{type=\"download\"}", in: page) == Double(ProxyImages.jpeg.count))
            #expect((Self.value("workers", in: page) ?? 0) >= 1)
            #expect(Self.value("requests_in_progress", in: page) == 0)
            #expect(Self.value("images_in_progress", in: page) == 0)
            #expect((Self.value("vips_max_memory_bytes", in: page) ?? 0) > 0, "a variant was made, so libvips held memory")
            // Prometheus' default buckets, as imgproxy's histograms keep them.
            #expect(page.contains("request_duration_seconds_bucket{le=\"0.005\"}"))
            #expect(page.contains("request_duration_seconds_bucket{le=\"10.0\"}"))
            #expect(!page.contains("webimage_requests_total"), "WebImage's request series are not doubled under imgproxy's")
            #expect(page.contains("# HELP requests_total A counter of the total number of HTTP requests imgproxy processed."))
        }
    }

    @Test("IMGPROXY_PROMETHEUS_NAMESPACE prefixes every imgproxy name with <namespace>_")
    func namespace() {
        let metrics = ImgproxyMetrics(namespace: "images", limiter: WorkLimiter(workers: 4, queueSize: 8))
        metrics.requestStarted()
        metrics.requestEnded(status: 429, error: ProxyError(status: 429, message: "busy"), after: .milliseconds(3))
        let page = String(decoding: metrics.render(), as: UTF8.self)
        #expect(Self.value("images_requests_total", in: page) == 1)
        #expect(Self.value("images_status_codes_total{status=\"429\"}", in: page) == 1)
        #expect(Self.value("images_errors_total{type=\"queue\"}", in: page) == 1)
        #expect(Self.value("images_workers", in: page) == 4)
        for line in page.split(separator: "\n") where !line.hasPrefix("#") {
            #expect(line.hasPrefix("images_"), "\(line)")
        }
    }

    @Test("workers_utilization is requests in flight per worker, in percent, as imgproxy computes it")
    func utilization() {
        let metrics = ImgproxyMetrics(namespace: nil, limiter: WorkLimiter(workers: 4, queueSize: 8))
        metrics.requestStarted()
        metrics.requestStarted()
        metrics.requestStarted()
        var page = String(decoding: metrics.render(), as: UTF8.self)
        #expect(Self.value("requests_in_progress", in: page) == 3)
        #expect(Self.value("workers_utilization", in: page) == 75)
        metrics.requestEnded(status: 200, error: nil, after: .milliseconds(1))
        page = String(decoding: metrics.render(), as: UTF8.self)
        #expect(Self.value("workers_utilization", in: page) == 50)
    }

    /// imgproxy's error categories (handlers/errors.go and where each is raised) for each
    /// kind of answer; cancelled requests are not sent to the monitoring.
    static let categories: [(ProxyError.Kind, String?)] = [
        (.invalidURL, "path_parsing"), (.forbidden, "security"), (.invalidSourceURL, "security"),
        (.sourceUnreachable, "download"), (.invalidSourceImage, "download"), (.brokenImage, "processing"),
        (.tooManyRequests, "queue"), (.timeout, "timeout"), (.cancelled, nil),
    ]

    @Test("errors are counted under imgproxy's categories", arguments: categories)
    func category(_ kind: ProxyError.Kind, _ expected: String?) {
        #expect(ImgproxyMetrics.category(of: ProxyError(status: 500, message: "x", kind: kind)) == expected)
    }
}
