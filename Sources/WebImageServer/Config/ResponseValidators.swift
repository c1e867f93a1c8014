/// Where the `ETag` and `Last-Modified` of an image response come from, and how a
/// conditional request (`If-None-Match`, `If-Modified-Since`) is answered.
public enum ResponseValidators: String, Sendable, CaseIterable {
    /// The served bytes' own: a strong `ETag` of the encoded image and the time it was
    /// made. Conditional requests are answered from what the proxy holds.
    case variant
    /// The source's, passed through as imgproxy does: its `ETag` and `Last-Modified` (none
    /// when it sent none). A conditional request for an image the proxy does not hold is
    /// sent on to the source with those validators, and the source's 304 is answered as
    /// 304 without a download or any processing.
    case source
}
