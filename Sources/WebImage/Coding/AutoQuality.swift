/// Encoder quality chosen per image: the lowest quality whose result keeps a structural
/// similarity (``ImageSimilarity/ssim(_:_:)``) of at least ``target`` to the image being
/// encoded, found by bisection with at most ``maxEncodes`` encodes (``QualitySearch``).
///
/// A flat illustration reaches the target at a low quality and a detailed photo needs a
/// high one; one fixed quality for both wastes bytes on the first or loses detail on the
/// second.
public struct AutoQuality: Sendable, Hashable {
    /// The SSIM the result must keep, in 0.5…1 exclusive of 1. Default ``defaultTarget``.
    public var target: Double
    /// The qualities searched. Default 30…95.
    public var qualities: ClosedRange<Int>
    /// The most encodes one search may run, at least 2. Default 6.
    public var maxEncodes: Int

    /// The default target, an SSIM of 0.985: a little under what a JPEG at quality 80
    /// keeps of a typical photo at web sizes (0.976–0.991, median 0.986, over the photos
    /// measured by Benchmarks/Sources/QualityProfile), so that easy images get smaller and
    /// hard ones sharper.
    public static let defaultTarget = 0.985

    /// Creates auto-quality settings; out-of-range values are clamped (`target` to
    /// 0.5…0.9999, `qualities` to 1…100, `maxEncodes` to 2…16).
    public init(target: Double = AutoQuality.defaultTarget, qualities: ClosedRange<Int> = 30...95, maxEncodes: Int = 6) {
        self.target = min(max(target, 0.5), 0.9999)
        self.qualities = min(max(qualities.lowerBound, 1), 100)...min(max(qualities.upperBound, 1), 100)
        self.maxEncodes = min(max(maxEncodes, 2), 16)
    }

    /// A stable name for cache keys, e.g. `auto(0.985,30-95,6)`.
    public var key: String {
        "auto(\(target),\(qualities.lowerBound)-\(qualities.upperBound),\(maxEncodes))"
    }
}
