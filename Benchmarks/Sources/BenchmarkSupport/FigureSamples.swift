import Synchronization

/// What a package-benchmark closure measures, iteration by iteration, for the figure the
/// benchmark's teardown writes (`BenchmarkFigure`).
///
/// package-benchmark keeps its statistics to itself and runs every benchmark in a process
/// of its own, setup, iterations and teardown alike; so the closure records each measured
/// iteration's values here too (by name: a ratio, a rate), and the teardown, in the same
/// process, states their medians.
public final class FigureSamples: Sendable {
    private let samples = Mutex<[String: [Double]]>([:])

    public init() {}

    /// Adds `value` to the values recorded as `name`.
    public func record(_ value: Double, as name: String) {
        samples.withLock { $0[name, default: []].append(value) }
    }

    /// The values recorded as `name`, in the order recorded.
    public func values(_ name: String) -> [Double] {
        samples.withLock { $0[name] ?? [] }
    }

    /// The median of the values recorded as `name`; `nil` when there are none.
    public func median(_ name: String) -> Double? {
        Self.median(values(name))
    }

    /// The median of `values` (the mean of the middle two for an even count); `nil` when empty.
    public static func median(_ values: [Double]) -> Double? {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }
}
