import Foundation
import Logging
import ServiceLifecycle
import Testing
import Tracing
import WebImageLocking
import WebImageTestSupport
@testable import WebImageServer

/// The batch processor: bounded queue with counted drops, batches of the configured size,
/// export on schedule and a flush on graceful shutdown.
@Suite("Batch span processor")
struct BatchSpanProcessorTests {
    /// Keeps every batch it is given.
    final class RecordingExporter: SpanExporter {
        let batches = InlineLocked<[[FinishedSpan]]>([])
        let isShutDown = InlineLocked(false)
        func export(_ spans: [FinishedSpan]) async throws { batches.withLock { $0.append(spans) } }
        func shutdown() async { isShutDown.withLock { $0 = true } }
        var spanCount: Int { batches.withLock { $0.reduce(0) { $0 + $1.count } } }
    }

    static func span(_ index: Int) -> FinishedSpan {
        FinishedSpan(
            identity: SpanIdentity(traceID: SpanIdentity.randomTraceID(), spanID: SpanIdentity.randomSpanID(), isSampled: true),
            parentSpanID: nil, name: "span \(index)", kind: .internal, startNanoseconds: 0, endNanoseconds: 1
        )
    }

    @Test("A full queue drops and counts; a flush exports in batches of the batch size")
    func dropsAndBatches() async {
        let exporter = RecordingExporter()
        let processor = BatchSpanProcessor(exporter: exporter, maxQueueSize: 10, maxBatchSize: 4, scheduleDelay: .seconds(60))
        for index in 0..<13 { processor.enqueue(Self.span(index)) }
        #expect(processor.queuedSpans == 10)
        #expect(processor.droppedSpans == 3)
        await processor.flush()
        #expect(exporter.batches.withLock { $0.map(\.count) } == [4, 4, 2])
        #expect(exporter.batches.withLock { $0.flatMap { $0.map(\.name) } } == (0..<10).map { "span \($0)" })
        #expect(processor.exportedSpans == 10 && processor.queuedSpans == 0)
    }

    @Test("A failed batch is dropped and the flush stops there; the rest go with the next flush")
    func failedExport() async {
        final class FailingOnce: SpanExporter {
            let attempts = InlineLocked(0)
            let received = InlineLocked<[String]>([])
            struct Refused: Error {}
            func export(_ spans: [FinishedSpan]) async throws {
                let attempt = attempts.withLock { $0 += 1; return $0 }
                if attempt == 1 { throw Refused() }
                received.withLock { $0 += spans.map(\.name) }
            }
            func shutdown() async {}
        }
        let exporter = FailingOnce()
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        let processor = BatchSpanProcessor(exporter: exporter, maxQueueSize: 10, maxBatchSize: 2, scheduleDelay: .seconds(60), logger: logger)
        for index in 0..<6 { processor.enqueue(Self.span(index)) }
        await processor.flush()
        #expect(exporter.attempts.withLock { $0 } == 1)
        #expect(processor.queuedSpans == 4 && processor.exportedSpans == 0)
        await processor.flush()
        #expect(exporter.received.withLock { $0 } == ["span 2", "span 3", "span 4", "span 5"])
        #expect(processor.exportedSpans == 4)
    }

    @Test("Exports after the schedule delay, early when a batch is full, and flushes on graceful shutdown")
    func scheduleAndShutdown() async throws {
        let exporter = RecordingExporter()
        let processor = BatchSpanProcessor(exporter: exporter, maxQueueSize: 100, maxBatchSize: 5, scheduleDelay: .milliseconds(200))
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        let group = ServiceGroup(configuration: .init(services: [processor], logger: logger))
        let running = Task { try await group.run() }
        processor.enqueue(Self.span(0))
        #expect(await eventually { exporter.spanCount == 1 })
        // A full batch goes at once, well before a long delay would pass.
        let slow = BatchSpanProcessor(exporter: exporter, maxQueueSize: 100, maxBatchSize: 5, scheduleDelay: .seconds(60))
        let slowGroup = ServiceGroup(configuration: .init(services: [slow], logger: logger))
        let slowRunning = Task { try await slowGroup.run() }
        for index in 1...5 { slow.enqueue(Self.span(index)) }
        #expect(await eventually { exporter.spanCount == 6 })
        // Queued just before shutdown: flushed by it.
        slow.enqueue(Self.span(6))
        await slowGroup.triggerGracefulShutdown()
        try await slowRunning.value
        #expect(exporter.spanCount == 7)
        #expect(exporter.isShutDown.withLock { $0 })
        await group.triggerGracefulShutdown()
        try await running.value
    }

    @Test("An unsampled span records nothing and is not exported; a sampled one carries its parent")
    func sampling() async throws {
        let exporter = RecordingExporter()
        let processor = BatchSpanProcessor(exporter: exporter, scheduleDelay: .seconds(60))
        let off = OTLPTracer(sampler: .alwaysOff, processor: processor)
        let unsampled = off.startSpan("nothing", context: .topLevel, ofKind: .internal)
        unsampled.attributes["a"] = 1
        #expect(!unsampled.isRecording)
        #expect(unsampled.attributes.isEmpty)
        unsampled.end()
        let on = OTLPTracer(sampler: .alwaysOn, processor: processor)
        let parent = on.startSpan("parent", context: .topLevel, ofKind: .server)
        let child = on.startSpan("child", context: parent.context, ofKind: .internal)
        child.attributes["webimage.bytes"] = 3
        child.setStatus(SpanStatus(code: .error, message: "broken"))
        child.end()
        child.end()
        parent.end()
        await processor.flush()
        let spans = exporter.batches.withLock { $0.flatMap { $0 } }
        #expect(spans.map(\.name) == ["child", "parent"])
        #expect(spans[0].identity.traceID == spans[1].identity.traceID)
        #expect(spans[0].parentSpanID == spans[1].identity.spanID)
        #expect(spans[1].parentSpanID == nil)
        #expect(spans[0].status == SpanStatus(code: .error, message: "broken"))
        #expect(spans[0].attributes.get("webimage.bytes") == .int64(3))
    }

    @Test("inject writes traceparent and tracestate; extract reads them")
    func propagation() throws {
        let tracer = OTLPTracer(sampler: .alwaysOn, processor: BatchSpanProcessor(exporter: RecordingExporter()))
        var context = ServiceContext.topLevel
        tracer.extract(["traceparent": "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01", "tracestate": "congo=t61rcWkgMzE"], into: &context, using: DictionaryExtractor())
        let span = tracer.startSpan("server", context: context, ofKind: .server)
        var headers: [String: String] = [:]
        tracer.inject(span.context, into: &headers, using: DictionaryInjector())
        let sent = try #require(headers["traceparent"].flatMap { SpanIdentity(traceparent: $0) })
        #expect(sent.traceID == "0af7651916cd43dd8448eb211c80319c")
        #expect(sent.spanID != "b7ad6b7169203331" && sent.isSampled)
        #expect(headers["tracestate"] == "congo=t61rcWkgMzE")
        var fresh = ServiceContext.topLevel
        tracer.extract(["traceparent": "garbage"], into: &fresh, using: DictionaryExtractor())
        #expect(fresh.spanIdentity == nil)
    }

    struct DictionaryExtractor: Extractor {
        func extract(key: String, from carrier: [String: String]) -> String? { carrier[key] }
    }

    struct DictionaryInjector: Injector {
        func inject(_ value: String, forKey key: String, into carrier: inout [String: String]) { carrier[key] = value }
    }
}
