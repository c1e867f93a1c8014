import Foundation
import Logging

/// How `webimage serve` writes its log lines to standard error, as imgproxy's
/// `IMGPROXY_LOG_FORMAT` names them.
public enum LogFormat: String, Sendable, CaseIterable {
    /// swift-log's text lines: `2026-11-28T07:00:00+0000 info webimage.serve : key=value message`.
    case pretty
    /// One `key=value` line per message (logfmt): `time=… level=info msg="…" key=value`.
    case structured
    /// One JSON object per line: `{"time":"…","level":"info","msg":"…", "key": "value"}`.
    case json
    /// JSON as Google Cloud Logging reads it: `severity`, `message` and `time`.
    case gcp

    /// The format `text` names (`pretty`, `structured`, `json`, `gcp`; any case); `nil` for anything else.
    public init?(name text: String) {
        self.init(rawValue: text.trimmingCharacters(in: .whitespaces).lowercased())
    }

    /// A handler writing lines in this format to standard error, for `label`.
    public func handler(label: String) -> any LogHandler {
        switch self {
        case .pretty: StreamLogHandler.standardError(label: label)
        default: FormattedLogHandler(label: label, format: self)
        }
    }
}

/// Writes each message as one line in a ``LogFormat`` other than ``LogFormat/pretty``, to
/// standard error in a single `write`, so that lines from many threads never interleave.
struct FormattedLogHandler: LogHandler {
    let label: String
    let format: LogFormat
    var logLevel: Logger.Level = .info
    var metadata: Logger.Metadata = [:]
    var metadataProvider: Logger.MetadataProvider?

    init(label: String, format: LogFormat) {
        self.label = label
        self.format = format
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var fields = metadata
        if let provided = metadataProvider?.get() { fields.merge(provided) { _, new in new } }
        if let extra = event.metadata { fields.merge(extra) { _, new in new } }
        let line = Self.line(
            format: format, time: Date(), level: event.level, message: "\(event.message)", label: label, fields: fields
        )
        FileHandle.standardError.write(Data(line.utf8))
    }

    /// One log line, newline included.
    static func line(format: LogFormat, time: Date, level: Logger.Level, message: String, label: String, fields: Logger.Metadata) -> String {
        let timestamp = time.formatted(.iso8601.year().month().day().time(includingFractionalSeconds: true).timeZone(separator: .omitted))
        let sorted = fields.sorted { $0.key < $1.key }
        switch format {
        case .json, .gcp:
            let head: [(String, String)] = format == .gcp
                ? [("time", json(timestamp)), ("severity", json(gcpSeverity(level))), ("message", json(message)), ("logger", json(label))]
                : [("time", json(timestamp)), ("level", json(level.rawValue)), ("msg", json(message)), ("logger", json(label))]
            let body = head + sorted.map { ($0.key, json($0.value)) }
            return "{" + body.map { "\(json($0.0)):\($0.1)" }.joined(separator: ",") + "}\n"
        case .structured, .pretty:
            let head = ["time=\(timestamp)", "level=\(level.rawValue)", "msg=\(logfmt(message))", "logger=\(logfmt(label))"]
            return (head + sorted.map { "\($0.key)=\(logfmt("\($0.value)"))" }).joined(separator: " ") + "\n"
        }
    }

    /// Cloud Logging's severity names.
    private static func gcpSeverity(_ level: Logger.Level) -> String {
        switch level {
        case .trace, .debug: "DEBUG"
        case .info: "INFO"
        case .notice: "NOTICE"
        case .warning: "WARNING"
        case .error: "ERROR"
        case .critical: "CRITICAL"
        }
    }

    /// A JSON string literal.
    static func json(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    /// A metadata value as JSON: strings, arrays and objects as themselves.
    static func json(_ value: Logger.MetadataValue) -> String {
        switch value {
        case .string(let text): json(text)
        case .stringConvertible(let convertible): json(convertible.description)
        case .array(let items): "[" + items.map { json($0) }.joined(separator: ",") + "]"
        case .dictionary(let entries):
            "{" + entries.sorted { $0.key < $1.key }.map { "\(json($0.key)):\(json($0.value))" }.joined(separator: ",") + "}"
        }
    }

    /// A logfmt value: bare when it has no blank, quote or `=`, else quoted.
    static func logfmt(_ text: String) -> String {
        let needsQuotes = text.isEmpty || text.contains { $0 == " " || $0 == "\"" || $0 == "=" || $0.isNewline }
        return needsQuotes ? json(text) : text
    }
}
