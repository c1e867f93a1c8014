import Benchmark
import BenchmarkSupport
import Foundation
import Synchronization
import WebImage

// ImageManager's memory-hit path against a bare MemoryCache lookup, ImageDownloader
// against AsyncHTTPClient used directly, and ImageDownloader fetching by a host name pinned
// through hopAddress against by IP literal, the downloads from a local NIO server
// (BenchmarkSupport/HTTPBenchServer) in the same process. Each pair is interleaved A/B:
// every iteration times both sides in turn (the order alternates) and records each
// side's rate and the ratio WebImage / baseline (×1000; 1000 = equal). At the end of its
// run the coalescing benchmark against the slow origin writes its figure, the origin
// requests a round of 1,000 loads makes, to Benchmarks/results/loading-coalescing.json
// (BenchmarkFigure); the download pairs' figures come from LoadingProfile.

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

// MARK: Memory hits through ImageManager

/// A manager whose memory cache holds one small image for `url`.
final class MemoryHitFixture: Sendable {
    let manager: ImageManager
    let url = URL(string: "https://example.com/images/hit.png")!
    let key: String
    let memoryCache: MemoryCache<String, Image>
    let directory: String

    init() {
        var config = CacheConfig()
        directory = PosixFiles.temporaryDirectory("webimage-bench-manager")
        config.rootDirectory = directory
        config.autoCleanInterval = nil
        let cache = ImageCache(config: config)
        manager = ImageManager(cache: cache, loader: ImageDownloader(config: DownloaderConfig()))
        key = manager.cacheKey(for: url)!
        let image = try! Image(pixels: [UInt8](repeating: 128, count: 64 * 64 * 3), width: 64, height: 64, channels: 3)
        cache.storeToMemory(image, forKey: key)
        memoryCache = cache.memoryCache!
    }
}

let hits = MemoryHitFixture()
// 10,000 calls a side: a sample of a few milliseconds, well above the clocks' resolution.
let callsPerSide = 10_000

let hitAsyncCalls = metric("loadImage(from:) calls/s (K)", larger: true)
let hitCallbackCalls = metric("loadImage(with:…completion:) calls/s (K)", larger: true)
let hitLookupCalls = metric("MemoryCache.value(forKey:) lookups/s (K)", larger: true)
let hitAsyncRatio = metric("loadImage(from:) / lookup, CPU ×1000")
let hitCallbackRatio = metric("loadImage(with:) / lookup, CPU ×1000")

// MARK: Downloads from the local server

// The pair (its server, downloader and direct client, configured alike) lives in
// BenchmarkSupport/DownloadPair, shared with the LoadingProfile executable.
let pair = try! DownloadPair(transfers: 1_000, concurrency: 6)
let server = pair.server
let downloader = pair.downloader
let batch = Atomic<Int>(0)

let downloadWebImageRate = metric("ImageDownloader.load MB/s", larger: true)
let downloadDirectRate = metric("AsyncHTTPClient direct MB/s", larger: true)
let downloadRatioWall = metric("ImageDownloader / AHC, wall ×1000")
let downloadRatioCPU = metric("ImageDownloader / AHC, CPU ×1000")

// The same server, by host name pinned through hopAddress against by IP literal
// (BenchmarkSupport/PinnedDownloadPair, shared with LoadingProfile).
let pinnedPair = PinnedDownloadPair(server: server, transfers: 1_000, concurrency: 6)
let pinnedRate = metric("localhost, pinned MB/s", larger: true)
let literalRate = metric("127.0.0.1 literal MB/s", larger: true)
let pinnedThroughputRatio = metric("pinned / literal MB/s ×1000", larger: true)
let pinnedRatioCPU = metric("pinned / literal, CPU ×1000")

let originRequests = metric("origin requests")
let coalescedWall = metric("wall ms, 1,000 loads")

let benchmarks: @Sendable () -> Void = {
    // 1. Memory hits: ImageManager.loadImage (async and callback forms) vs a bare lookup.
    Benchmark(
        "Memory hit: ImageManager.loadImage vs MemoryCache lookup",
        configuration: pairConfiguration([hitAsyncCalls, hitCallbackCalls, hitLookupCalls, hitAsyncRatio, hitCallbackRatio], maxIterations: 100)
    ) { benchmark in
        for iteration in benchmark.scaledIterations {
            let url = hits.url, key = hits.key, manager = hits.manager, memoryCache = hits.memoryCache
            let runAsync = {
                await Clocks.measureProcess {
                    for _ in 0..<callsPerSide {
                        let result = try! await manager.loadImage(from: url)
                        precondition(result.cacheType == .memory)
                        blackHole(result)
                    }
                }
            }
            let runCallback = {
                Clocks.measureThread {
                    for _ in 0..<callsPerSide {
                        manager.loadImage(with: url) { result in
                            guard case .success(let value) = result, value.cacheType == .memory else {
                                preconditionFailure("not a memory hit: \(result)")
                            }
                            blackHole(value)
                        }
                    }
                }
            }
            let runLookup = {
                Clocks.measureThread {
                    for _ in 0..<callsPerSide { blackHole(memoryCache.value(forKey: key)!) }
                }
            }
            let asyncSample: TimeSample, callbackSample: TimeSample, lookupSample: TimeSample
            if iteration % 2 == 0 {
                lookupSample = runLookup(); callbackSample = runCallback(); asyncSample = await runAsync()
            } else {
                asyncSample = await runAsync(); callbackSample = runCallback(); lookupSample = runLookup()
            }
            let n = Double(callsPerSide)
            benchmark.measurement(hitAsyncCalls, Int(n / asyncSample.cpu / 1000))
            benchmark.measurement(hitCallbackCalls, Int(n / callbackSample.cpu / 1000))
            benchmark.measurement(hitLookupCalls, Int(n / lookupSample.cpu / 1000))
            benchmark.measurement(hitAsyncRatio, asyncSample.permille(over: lookupSample).cpu)
            benchmark.measurement(hitCallbackRatio, callbackSample.permille(over: lookupSample).cpu)
        }
    } teardown: {
        try? FileManager.default.removeItem(atPath: hits.directory)
    }

    // 2. 1,000 distinct 100 KB bodies, 6 at a time: ImageDownloader.load vs HTTPClient.execute.
    Benchmark(
        "Download 1,000 × 100 KB, concurrency 6: ImageDownloader vs AsyncHTTPClient",
        configuration: pairConfiguration(
            [downloadWebImageRate, downloadDirectRate, downloadRatioWall, downloadRatioCPU],
            warmup: 1, maxDuration: 40, maxIterations: 32
        )
    ) { benchmark in
        let megabytes = pair.megabytesPerRound
        // The harness's warm-up iteration runs both sides too; this makes sure of it.
        try await pair.warmUp()
        for iteration in benchmark.scaledIterations {
            var bytesA = 0, bytesB = 0
            let a: TimeSample, b: TimeSample
            if iteration % 2 == 0 {
                a = try await Clocks.measureProcess { bytesA = try await pair.webImageRound() }
                b = try await Clocks.measureProcess { bytesB = try await pair.directRound() }
            } else {
                b = try await Clocks.measureProcess { bytesB = try await pair.directRound() }
                a = try await Clocks.measureProcess { bytesA = try await pair.webImageRound() }
            }
            precondition(bytesA == pair.transfers * server.bodySize && bytesA == bytesB, "short: \(bytesA) / \(bytesB)")
            benchmark.measurement(downloadWebImageRate, Int(megabytes / a.wall))
            benchmark.measurement(downloadDirectRate, Int(megabytes / b.wall))
            let ratio = a.permille(over: b)
            benchmark.measurement(downloadRatioWall, ratio.wall)
            benchmark.measurement(downloadRatioCPU, ratio.cpu)
        }
    }

    // 3. 1,000 distinct 100 KB bodies, 6 at a time, from `localhost` pinned to 127.0.0.1
    //    by hopAddress (pooled pinned clients) against from `127.0.0.1` (the shared client).
    Benchmark(
        "Download 1,000 × 100 KB, concurrency 6: localhost pinned by hopAddress vs 127.0.0.1",
        configuration: pairConfiguration(
            [pinnedRate, literalRate, pinnedThroughputRatio, pinnedRatioCPU],
            warmup: 1, maxDuration: 30, maxIterations: 24
        )
    ) { benchmark in
        let megabytes = pinnedPair.megabytesPerRound
        try await pinnedPair.warmUp()
        for iteration in benchmark.scaledIterations {
            var bytesA = 0, bytesB = 0
            let a: TimeSample, b: TimeSample
            if iteration % 2 == 0 {
                a = try await Clocks.measureProcess { bytesA = try await pinnedPair.pinnedRound() }
                b = try await Clocks.measureProcess { bytesB = try await pinnedPair.literalRound() }
            } else {
                b = try await Clocks.measureProcess { bytesB = try await pinnedPair.literalRound() }
                a = try await Clocks.measureProcess { bytesA = try await pinnedPair.pinnedRound() }
            }
            precondition(bytesA == pinnedPair.transfers * server.bodySize && bytesA == bytesB, "short: \(bytesA) / \(bytesB)")
            benchmark.measurement(pinnedRate, Int(megabytes / a.wall))
            benchmark.measurement(literalRate, Int(megabytes / b.wall))
            // Throughput ratio: the literal side's time over the pinned side's (1000 = equal).
            benchmark.measurement(pinnedThroughputRatio, b.permille(over: a).wall)
            benchmark.measurement(pinnedRatioCPU, a.permille(over: b).cpu)
        }
    }

    // 4. 1,000 concurrent loads of one URL: one origin request expected.
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
