import Foundation
import ServiceContextModule

/// The identity of one span in W3C Trace Context terms: a 16-byte trace ID, an 8-byte span
/// ID, whether the trace is sampled, and the vendors' `tracestate`.
public struct SpanIdentity: Sendable, Hashable {
    /// The trace's ID: 32 lowercase hex digits, never all zeros.
    public var traceID: String
    /// The span's ID: 16 lowercase hex digits, never all zeros.
    public var spanID: String
    /// Whether the trace is sampled (the `traceparent` flag `01`).
    public var isSampled: Bool
    /// The `tracestate` header passed on unchanged; empty when there is none.
    public var traceState: String
    /// Whether the identity arrived from another process (a parsed `traceparent`).
    public var isRemote: Bool

    /// Creates an identity from its parts.
    public init(traceID: String, spanID: String, isSampled: Bool, traceState: String = "", isRemote: Bool = false) {
        self.traceID = traceID
        self.spanID = spanID
        self.isSampled = isSampled
        self.traceState = traceState
        self.isRemote = isRemote
    }

    /// The W3C `traceparent` header value: `00-<trace id>-<span id>-<flags>`.
    public var traceparent: String { "00-\(traceID)-\(spanID)-\(isSampled ? "01" : "00")" }

    /// Parses a W3C `traceparent` header (version `00`, or a later version's first four
    /// fields); `nil` when it is malformed or names an all-zero trace or span ID.
    public init?(traceparent: String, traceState: String = "") {
        let fields = traceparent.trimmingCharacters(in: .whitespaces).split(separator: "-", omittingEmptySubsequences: false)
        guard fields.count >= 4, fields[0].count == 2, fields[0].isLowercaseHex, fields[0] != "ff" else { return nil }
        if fields[0] == "00", fields.count != 4 { return nil }
        let traceID = fields[1], spanID = fields[2], flags = fields[3]
        guard traceID.count == 32, traceID.isLowercaseHex, traceID.contains(where: { $0 != "0" }),
              spanID.count == 16, spanID.isLowercaseHex, spanID.contains(where: { $0 != "0" }),
              flags.count == 2, flags.isLowercaseHex, let flagBits = UInt8(flags, radix: 16)
        else { return nil }
        self.init(traceID: String(traceID), spanID: String(spanID), isSampled: flagBits & 1 == 1, traceState: traceState, isRemote: true)
    }

    /// A fresh random trace ID (32 hex digits, not all zeros).
    static func randomTraceID() -> String {
        var generator = SystemRandomNumberGenerator()
        var high: UInt64 = 0, low: UInt64 = 0
        while high == 0 && low == 0 { (high, low) = (generator.next(), generator.next()) }
        return high.paddedHex + low.paddedHex
    }

    /// A fresh random span ID (16 hex digits, not all zeros).
    static func randomSpanID() -> String {
        var generator = SystemRandomNumberGenerator()
        var id: UInt64 = 0
        while id == 0 { id = generator.next() }
        return id.paddedHex
    }
}

/// Where a ``SpanIdentity`` travels in a `ServiceContext`.
enum SpanIdentityKey: ServiceContextKey {
    typealias Value = SpanIdentity
}

extension ServiceContext {
    /// The span this context is inside, if any.
    var spanIdentity: SpanIdentity? {
        get { self[SpanIdentityKey.self] }
        set { self[SpanIdentityKey.self] = newValue }
    }
}

extension UInt64 {
    /// 16 lowercase hex digits.
    var paddedHex: String {
        let digits = String(self, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}

extension StringProtocol {
    /// Whether every character is 0-9 or a-f.
    var isLowercaseHex: Bool { allSatisfy { ("0"..."9").contains($0) || ("a"..."f").contains($0) } }
}
