import Benchmark
import BenchmarkSupport
import Foundation
import WebImage

// ImagePrefetcher warming the memory cache from the disk cache: 500 URLs whose images are
// on disk, memory cleared before each prefetch, a loader that fails any request (and
// counts it: it must stay at 0). Interleaved with the same work done by hand on one
// thread (disk read, decode, memory store), for the prefetcher's overhead. At the end of
// its run the benchmark writes its figure, the medians of the prefetcher's rate and CPU
// ratio, to Benchmarks/results/prefetch-disk-cached.json (BenchmarkFigure).

extension Benchmark {
    /// Whether this iteration counts: package-benchmark drops the warm-up iterations' measurements.
    var isMeasured: Bool { currentIteration >= configuration.warmupIterations }
}

/// A custom count metric; `larger` when a larger value is better.
func metric(_ name: String, larger: Bool = false) -> BenchmarkMetric {
    .custom(name, polarity: larger ? .prefersLarger : .prefersSmaller, useScalingFactor: false)
}

let fixture = try! DiskCachedURLs()

let prefetchRate = metric("ImagePrefetcher URLs/s (wall)", larger: true)
let prefetchCPU = metric("ImagePrefetcher CPU µs per URL")
let byHandRate = metric("by hand, one thread: URLs/s (wall)", larger: true)
let byHandCPU = metric("by hand, one thread: CPU µs per URL")
let ratioCPU = metric("ImagePrefetcher / by hand, CPU ×1000")

let samples = FigureSamples()

let benchmarks: @Sendable () -> Void = {
    let custom = [prefetchRate, prefetchCPU, byHandRate, byHandCPU, ratioCPU]
    var units: [BenchmarkMetric: BenchmarkUnits] = [:]
    for metric in custom { units[metric] = .count }

    Benchmark(
        "Prefetch 500 disk-cached URLs (memory cleared): ImagePrefetcher vs disk read + decode by hand",
        configuration: .init(
            metrics: [.wallClock, .cpuTotal, .mallocCountTotal] + custom,
            units: units,
            warmupIterations: 1,
            maxDuration: .seconds(15),
            maxIterations: 20
        )
    ) { benchmark in
        // Default settings: at most 3 loads at a time, lowPriority added.
        let prefetcher = ImagePrefetcher(manager: fixture.manager)
        let urls = fixture.urls
        let n = Double(urls.count)
        for iteration in benchmark.scaledIterations {
            let prefetch = {
                fixture.cache.clearMemory()
                var result: PrefetchResult?
                let sample = await Clocks.measureProcess { result = await prefetcher.prefetch(urls) }
                precondition(
                    result?.finishedCount == urls.count && result?.skippedCount == 0,
                    "prefetch did not finish every URL from the disk: \(String(describing: result))"
                )
                return sample
            }
            let byHand = {
                fixture.cache.clearMemory()
                var stored = 0
                let sample = try Clocks.measureBlocking { stored = try fixture.loadByHand() }
                precondition(stored == urls.count, "by hand: \(stored) of \(urls.count) entries read")
                return sample
            }
            let a: TimeSample, b: TimeSample
            if iteration % 2 == 0 {
                a = await prefetch(); b = try byHand()
            } else {
                b = try byHand(); a = await prefetch()
            }
            precondition(fixture.loader.loads == 0, "the loader was asked for \(fixture.loader.loads) URLs")
            benchmark.measurement(prefetchRate, Int((n / a.wall).rounded()))
            benchmark.measurement(prefetchCPU, Int((a.cpu / n * 1e6).rounded()))
            benchmark.measurement(byHandRate, Int((n / b.wall).rounded()))
            benchmark.measurement(byHandCPU, Int((b.cpu / n * 1e6).rounded()))
            benchmark.measurement(ratioCPU, a.permille(over: b).cpu)
            if benchmark.isMeasured {
                samples.record(n / a.wall, as: "rate")
                samples.record(a.cpu / max(b.cpu, 1e-9), as: "cpu")
            }
        }
    } setup: {
        try DirectVips.start()
        // Every URL must be a disk hit before anything is measured, and none may reach the loader.
        fixture.cache.clearMemory()
        let result = await ImagePrefetcher(manager: fixture.manager).prefetch(fixture.urls)
        guard result.finishedCount == fixture.urls.count, fixture.loader.loads == 0,
              fixture.cache.memoryCache!.count == fixture.urls.count
        else {
            throw DirectVips.Failure(
                description: "setup: \(result.finishedCount) of \(fixture.urls.count) prefetched, \(fixture.loader.loads) loader calls, \(fixture.cache.memoryCache!.count) in memory"
            )
        }
    } teardown: {
        try? FileManager.default.removeItem(atPath: fixture.directory)
        guard let rate = samples.median("rate"), let cpu = samples.median("cpu") else { return }
        BenchmarkFigure.write([BenchmarkFigure(
            id: "prefetch-disk-cached", figure: "`ImagePrefetcher`, 500 URLs cached on disk, memory cleared",
            value: String(
                format: "%.0f URLs/s, %.2f× the CPU (medians of %d interleaved iterations)",
                rate, cpu, samples.values("rate").count
            ),
            ratio: cpu, baseline: "the same loads by hand on one thread",
            command: "swift package benchmark --target PrefetchBenchmarks"
        )])
    }
}
