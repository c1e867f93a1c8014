import Benchmark
import BenchmarkSupport
import Foundation
import Synchronization
import WebImage

// Coalescing: 1,000 concurrent ImageDownloader loads of one URL from a local NIO server
// (BenchmarkSupport/HTTPBenchServer) in the same process, its origin answering after
// 50 ms or at once; the origin requests each round makes are counted. At the end of its
// run the benchmark against the slow origin writes its figure to
// Benchmarks/results/loading-coalescing.json (BenchmarkFigure). The memory-hit and download
// pairs state their figures through LoadingProfile.

extension Benchmark {
    /// Whether this iteration counts: package-benchmark drops the warm-up iterations' measurements.
    var isMeasured: Bool { currentIteration >= configuration.warmupIterations }
}

/// The coalescing figure from the origin requests of each measured round of 1,000 loads:
/// met when every round makes one request.
func coalescingFigure(_ requests: [Double]) -> BenchmarkFigure? {
    guard let median = FigureSamples.median(requests), let most = requests.max() else { return nil }
    let value =
        most == 1
        ? "1 origin request in each of \(requests.count) rounds"
        : String(format: "%.1f origin requests a round by the median, at most %.0f (%d rounds)", median, most, requests.count)
    return BenchmarkFigure(
        id: "loading-coalescing", figure: "1,000 concurrent loads of one URL", value: value,
        baseline: "—", target: "1", met: BenchmarkFigure.met(most == 1),
        command: "swift package benchmark --target LoadingBenchmarks"
    )
}

func metric(_ name: String, larger: Bool = false) -> BenchmarkMetric {
    .custom(name, polarity: larger ? .prefersLarger : .prefersSmaller, useScalingFactor: false)
}

func pairConfiguration(
    _ custom: [BenchmarkMetric], warmup: Int = 3, maxDuration: Int = 4, maxIterations: Int = 200
) -> Benchmark.Configuration {
    var units: [BenchmarkMetric: BenchmarkUnits] = [:]
    for metric in custom { units[metric] = .count }
    return .init(
        metrics: [.wallClock, .cpuTotal, .mallocCountTotal] + custom,
        units: units,
        warmupIterations: warmup,
        maxDuration: .seconds(maxDuration),
        maxIterations: maxIterations
    )
}

let server = try! HTTPBenchServer()
let downloader = ImageDownloader(config: DownloaderConfig())
let batch = Atomic<Int>(0)

let originRequests = metric("origin requests")
let coalescedWall = metric("wall ms, 1,000 loads")

let benchmarks: @Sendable () -> Void = {
    // 1,000 concurrent loads of one URL: one origin request expected.
    // The slow origin's benchmark writes the figure: every load of a round starts while the
    // first request is in flight.
    for (label, path) in [("origin answers after 50 ms", "slow"), ("origin answers at once", "fast")] {
        let samples = FigureSamples()
        Benchmark(
            "Coalescing: 1,000 concurrent ImageDownloader.load of one URL, \(label)",
            configuration: pairConfiguration([originRequests, coalescedWall], warmup: 1, maxDuration: 4, maxIterations: 20)
        ) { benchmark in
            for _ in benchmark.scaledIterations {
                let url = URL(string: "\(server.baseURL)/\(path)/coalesce-\(batch.add(1, ordering: .relaxed).oldValue)")!
                let before = server.requestCount
                var bytes = 0
                let sample = try await Clocks.measureProcess {
                    bytes = try await withThrowingTaskGroup(of: Int.self) { group in
                        for _ in 0..<1_000 {
                            group.addTask { try await downloader.load(url).data.count }
                        }
                        var total = 0
                        for try await count in group { total += count }
                        return total
                    }
                }
                precondition(bytes == 1_000 * server.bodySize, "short: \(bytes)")
                let requests = server.requestCount - before
                benchmark.measurement(originRequests, requests)
                benchmark.measurement(coalescedWall, Int((sample.wall * 1000).rounded()))
                if benchmark.isMeasured { samples.record(Double(requests), as: "requests") }
            }
        } teardown: {
            if path == "slow", let figure = coalescingFigure(samples.values("requests")) { BenchmarkFigure.write([figure]) }
        }
    }
}
