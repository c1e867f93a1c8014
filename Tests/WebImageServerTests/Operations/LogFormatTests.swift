import Foundation
import Logging
import Testing
@testable import WebImageServer

@Suite("Log formats")
struct LogFormatTests {
    static let time = Date(timeIntervalSince1970: 1_764_313_200.25)
    static let fields: Logger.Metadata = ["status": "404", "path": .string("/a b\"c"), "list": .array(["x", "y"])]

    @Test("json: one object per line, time, level, msg and logger first, metadata escaped")
    func json() throws {
        let line = FormattedLogHandler.line(format: .json, time: Self.time, level: .warning, message: "source\nfailed", label: "webimage.serve", fields: Self.fields)
        #expect(line.hasSuffix("}\n") && line.filter { $0 == "\n" }.count == 1)
        #expect(line.hasPrefix(#"{"time":"2025-11-28T07:00:00.250Z","level":"warning","msg":"source\nfailed","logger":"webimage.serve","#))
        let object = try #require(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(object["path"] as? String == "/a b\"c")
        #expect(object["status"] as? String == "404")
        #expect(object["list"] as? [String] == ["x", "y"])
    }

    @Test("gcp: severity and message, as Cloud Logging reads them")
    func gcp() throws {
        let line = FormattedLogHandler.line(format: .gcp, time: Self.time, level: .error, message: "boom", label: "l", fields: [:])
        let object = try #require(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(object["severity"] as? String == "ERROR" && object["message"] as? String == "boom")
    }

    @Test("structured: logfmt, values quoted only when they must be")
    func structured() {
        let line = FormattedLogHandler.line(format: .structured, time: Self.time, level: .info, message: "answered", label: "webimage.serve", fields: ["status": "200", "path": "/a b"])
        #expect(line == "time=2025-11-28T07:00:00.250Z level=info msg=answered logger=webimage.serve path=\"/a b\" status=200\n")
    }

    @Test("format names as imgproxy's IMGPROXY_LOG_FORMAT spells them")
    func names() {
        #expect(LogFormat(name: " JSON ") == .json && LogFormat(name: "pretty") == .pretty && LogFormat(name: "gcp") == .gcp)
        #expect(LogFormat(name: "xml") == nil)
        #expect(ImgproxyEnvironment.logFormat(["IMGPROXY_LOG_FORMAT": "structured"]) == "structured")
        #expect(ImgproxyEnvironment.logFormat([:]) == nil)
    }
}
