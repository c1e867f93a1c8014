import Logging
import Testing
@testable import WebImageServer

@Suite("Deferred log metadata")
struct DeferredMetadataLogHandlerTests {
    @Test("the wrapped handler logs with the metadata set through the wrapper")
    func forwards() {
        let store = LogLines()
        var base = RecordingLogHandler(store: store)
        base.logLevel = .trace
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
        #expect(store.lines.withLock { $0.map(\.metadata) } == [["a": "1", "c": "4"]])
        logger.handler.metadata = ["z": "9"]
        logger.info("y")
        #expect(store.lines.withLock { $0.last?.metadata } == ["z": "9"])
    }
}
