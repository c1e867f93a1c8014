import Logging
import Testing
@testable import WebImageServer

@Suite("Deferred log metadata")
struct DeferredMetadataLogHandlerTests {
    /// Records the metadata it holds when asked to log.
    struct Recorder: LogHandler {
        final class Box: @unchecked Sendable { var seen: [Logger.Metadata] = [] }
        let box: Box
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
        func log(event: LogEvent) { box.seen.append(metadata) }
    }

    @Test("the wrapped handler logs with the metadata set through the wrapper")
    func forwards() {
        let box = Recorder.Box()
        var base = Recorder(box: box)
        base[metadataKey: "a"] = "1"
        base[metadataKey: "b"] = "2"
        var logger = Logger(label: "t") { _ in DeferredMetadataLogHandler(wrapping: base) }
        logger[metadataKey: "c"] = "3"
        logger[metadataKey: "b"] = nil
        logger[metadataKey: "c"] = "4"
        #expect(logger[metadataKey: "a"] == "1")
        #expect(logger[metadataKey: "b"] == nil)
        #expect(logger[metadataKey: "c"] == "4")
        logger.info("x")
        #expect(box.seen == [["a": "1", "c": "4"]])
        logger.handler.metadata = ["z": "9"]
        logger.info("y")
        #expect(box.seen.last == ["z": "9"])
    }
}
