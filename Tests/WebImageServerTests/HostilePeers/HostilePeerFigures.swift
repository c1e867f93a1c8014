import Foundation

/// The figures the hostile-peer cases measure, printed for the record (never asserted:
/// the assertions are counts and statuses).
enum HostilePeerFigures {
    /// Prints the median, p99 and largest of `latencies` under `name`.
    static func record(_ name: String, _ latencies: [Duration]) {
        guard !latencies.isEmpty else { return }
        let sorted = latencies.sorted()
        func at(_ fraction: Double) -> Duration { sorted[min(sorted.count - 1, Int((Double(sorted.count) * fraction).rounded(.up)) - 1)] }
        func milliseconds(_ duration: Duration) -> String {
            String(format: "%.1f ms", Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15)
        }
        print("\(name): \(sorted.count) requests, median \(milliseconds(at(0.5))), p99 \(milliseconds(at(0.99))), max \(milliseconds(sorted.last!))")
    }
}
