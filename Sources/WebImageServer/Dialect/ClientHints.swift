import Foundation
import HTTPTypes

/// The client hints a request carries (`Sec-CH-DPR` or `DPR`, `Sec-CH-Width` or `Width`),
/// read as imgproxy reads them with `IMGPROXY_ENABLE_CLIENT_HINTS`: they set the `dpr` and
/// the width (the hint's device pixels divided by the dpr) a URL starts from, before the
/// `default` preset and the URL's own options, which win over them.
public struct ClientHints: Sendable, Hashable {
    /// The device pixel ratio, in 0 < dpr ≤ 8; `nil`: none given.
    public var dpr: Double?
    /// The width the image is shown at, in device pixels; `nil`: none given.
    public var width: Int?

    /// The header fields a response varies with when client hints are read.
    public static let varyFields = "Sec-CH-DPR, DPR, Sec-CH-Width, Width"

    /// Hints with `dpr` and `width`.
    public init(dpr: Double? = nil, width: Int? = nil) {
        self.dpr = dpr
        self.width = width
    }

    /// The fields read, each hint's `Sec-CH-` field first, made once rather than per request.
    private static let dprFields = [HTTPField.Name("Sec-CH-DPR")!, HTTPField.Name("DPR")!]
    private static let widthFields = [HTTPField.Name("Sec-CH-Width")!, HTTPField.Name("Width")!]

    /// The hints of a request's header fields: the `Sec-CH-` field first, then the older
    /// one; a value that is not a number in range is no hint. The values are rounded up to
    /// a bounded set (``roundedDPR(_:)``, ``roundedWidth(_:)``), so that the hints of any
    /// client make at most about 1,500 variants of one URL per format, none of them blurrier
    /// than asked for.
    public init(header: (HTTPField.Name) -> String?) {
        for name in Self.dprFields {
            if let text = header(name), let value = Double(text.trimmingCharacters(in: .whitespaces)), value > 0, value <= 8 {
                dpr = Self.roundedDPR(value)
                break
            }
        }
        for name in Self.widthFields {
            if let text = header(name), let value = Int(text.trimmingCharacters(in: .whitespaces)), value > 0 {
                width = Self.roundedWidth(value)
                break
            }
        }
    }

    /// The widest hint read, in device pixels: wider screens than any made; a larger hint
    /// is read as it.
    public static let maxWidth = 16_384

    /// A device pixel ratio rounded up to the next half: 16 values from 0.5 to 8.
    public static func roundedDPR(_ dpr: Double) -> Double {
        min(8, max(0.5, (dpr * 2).rounded(.up) / 2))
    }

    /// A width rounded up to keep its four highest bits (at most 12.5 % wider, 8 values per
    /// doubling), at most ``maxWidth``: 96 values in all.
    public static func roundedWidth(_ width: Int) -> Int {
        let width = min(max(width, 1), maxWidth)
        guard width > 16 else { return width }
        let step = 1 << (Int.bitWidth - width.leadingZeroBitCount - 4)
        return min(maxWidth, (width + step - 1) / step * step)
    }

    /// Whether no hint was given.
    public var isEmpty: Bool { dpr == nil && width == nil }

    /// `options` with the hints applied: the dpr, and the width in CSS pixels.
    func applied(to options: ProcessingOptions) -> ProcessingOptions {
        var options = options
        let ratio = dpr ?? 1
        if let dpr { options.dpr = dpr }
        if let width { options.width = Int((Double(width) / ratio).rounded()) }
        return options
    }

    /// A suffix that tells paths with these hints apart in a cache of resolved paths.
    var cacheKeySuffix: String {
        isEmpty ? "" : " ch:\(dpr.map { String($0) } ?? "-"):\(width.map(String.init) ?? "-")"
    }
}
