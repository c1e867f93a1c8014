import Benchmark
import BenchmarkSupport
import Foundation
import Synchronization
import WebImage

// WebImage's memory and disk caches against the simplest code doing the same work.
// Each benchmark is an interleaved A/B pair: every iteration times both sides in turn
// (the order alternates), so both see the same machine load, and records each side's
// rate and the per-iteration ratio WebImage / baseline (×1000; 1000 = equal). At the end
// of its run each pair writes its figure, the medians of those ratios, to
// Benchmarks/results/<id>.json (BenchmarkFigure): cache-memory-hit, cache-disk-write,
// cache-disk-read.

func metric(_ name: String, larger: Bool = false) -> BenchmarkMetric {
    .custom(name, polarity: larger ? .prefersLarger : .prefersSmaller, useScalingFactor: false)
}

func pairConfiguration(_ custom: [BenchmarkMetric], maxDuration: Int = 4, maxIterations: Int = 200) -> Benchmark.Configuration {
    var units: [BenchmarkMetric: BenchmarkUnits] = [:]
    for metric in custom { units[metric] = .count }
    return .init(
        metrics: [.wallClock, .cpuTotal, .mallocCountTotal] + custom,
        units: units,
        warmupIterations: 3,
        maxDuration: .seconds(maxDuration),
        maxIterations: maxIterations
    )
}

extension Benchmark {
    /// Whether this iteration counts: package-benchmark drops the warm-up iterations' measurements.
    var isMeasured: Bool { currentIteration >= configuration.warmupIterations }
}

/// What the figures' `command` says: how to measure them again.
let figureCommand = "swift package benchmark --target CacheBenchmarks"

/// Writes the figure of a disk pair from its samples ("wall" and "cpu": baseline time /
/// DiskCache time, the share of the baseline's MB/s) against a target share of `floor`.
func writeDiskFigure(_ samples: FigureSamples, id: String, figure: String, baseline: String, target: String, floor: Double) {
    guard let wall = samples.median("wall"), let cpu = samples.median("cpu") else { return }
    BenchmarkFigure.write([BenchmarkFigure(
        id: id, figure: figure,
        value: String(
            format: "%.0f %% of the MB/s (by CPU %.0f %%), medians of %d interleaved iterations",
            wall * 100, cpu * 100, samples.values("wall").count
        ),
        ratio: wall, baseline: baseline, target: target, met: BenchmarkFigure.met(wall >= floor), command: figureCommand
    )])
}

// MARK: Memory cache

/// The baseline: a plain dictionary behind a `Mutex`.
final class MutexDictionary: Sendable {
    let storage: Mutex<[String: Int]>
    init(_ values: [String: Int]) { storage = Mutex(values) }
    func value(forKey key: String) -> Int? { storage.withLock { $0[key] } }
}

let keyCount = 10_000
let passes = 10 // lookups per side per iteration: keyCount × passes
let keys: [String] = {
    var generator = SystemRandomNumberGenerator()
    return (0..<keyCount).map { "https://example.com/images/\($0).jpg" }.shuffled(using: &generator)
}()

let memoryLookupsWebImage = metric("MemoryCache lookups/s (K)", larger: true)
let memoryLookupsBaseline = metric("Mutex<Dictionary> lookups/s (K)", larger: true)
let memoryRatioCPU = metric("MemoryCache / Mutex<Dictionary>, CPU ×1000")
let memoryRatioWall = metric("MemoryCache / Mutex<Dictionary>, wall ×1000")

// MARK: Disk cache

let entrySize = 100 * 1024
let entriesPerIteration = 20 // per side and direction; keys cycle over these
let megabytes = Double(entrySize * entriesPerIteration) / 1_000_000

let diskWriteWebImage = metric("DiskCache.storeSync MB/s", larger: true)
let diskWriteBaseline = metric("POSIX write+rename MB/s", larger: true)
let diskWriteRatioWall = metric("write: DiskCache / POSIX, wall ×1000")
let diskWriteRatioCPU = metric("write: DiskCache / POSIX, CPU ×1000")
let diskReadWebImage = metric("DiskCache.dataSync MB/s", larger: true)
let diskReadBaseline = metric("POSIX open/read/close MB/s", larger: true)
let diskReadRatioWall = metric("read: DiskCache / POSIX, wall ×1000")
let diskReadRatioCPU = metric("read: DiskCache / POSIX, CPU ×1000")

final class DiskFixture: Sendable {
    let cache: DiskCache
    let baselineDirectory: String
    let payload = PosixFiles.randomBytes(100 * 1024)
    let cacheKeys = (0..<entriesPerIteration).map { "https://example.com/disk/\($0).jpg" }
    let fileNames = (0..<entriesPerIteration).map { "entry-\($0)" }

    init() {
        var config = CacheConfig()
        config.rootDirectory = PosixFiles.temporaryDirectory("webimage-bench-diskcache")
        config.autoCleanInterval = nil
        cache = DiskCache(config: config)
        baselineDirectory = PosixFiles.temporaryDirectory("webimage-bench-posix")
    }

    /// Deletes both folders (each benchmark runs in a process of its own).
    func remove() {
        try? FileManager.default.removeItem(atPath: cache.config.rootDirectory)
        try? FileManager.default.removeItem(atPath: baselineDirectory)
    }

    func writeWebImage() throws {
        for key in cacheKeys { try cache.storeSync(payload, forKey: key) }
    }

    func writeBaseline() {
        for name in fileNames { PosixFiles.writeAtomically(payload, directory: baselineDirectory, name: name) }
    }

    func readWebImage() -> Int {
        var total = 0
        for key in cacheKeys { total += cache.dataSync(forKey: key)?.count ?? 0 }
        return total
    }

    func readBaseline() -> Int {
        var total = 0
        for name in fileNames { total += PosixFiles.read(path: baselineDirectory + "/" + name)?.count ?? 0 }
        return total
    }
}

/// Made on first use (lazily), so only the disk benchmarks' processes create the folders.
let disk = DiskFixture()

let benchmarks: @Sendable () -> Void = {
    // 1. Memory cache hits: MemoryCache<String, Int> vs Mutex<[String: Int]>, 10,000 warm keys.
    let cache = MemoryCache<String, Int>()
    var plain: [String: Int] = [:]
    for (i, key) in keys.enumerated() {
        cache.setValue(i, forKey: key)
        plain[key] = i
    }
    let baseline = MutexDictionary(plain)
    let lookupsPerSide = Double(keyCount * passes)
    let memorySamples = FigureSamples()

    Benchmark(
        "Memory cache hit, 10,000 keys: MemoryCache vs Mutex<Dictionary>",
        configuration: pairConfiguration([memoryLookupsWebImage, memoryLookupsBaseline, memoryRatioCPU, memoryRatioWall])
    ) { benchmark in
        for iteration in benchmark.scaledIterations {
            var sumA = 0, sumB = 0
            let runA = {
                Clocks.measureThread {
                    for _ in 0..<passes { for key in keys { sumA &+= cache.value(forKey: key) ?? -1 } }
                }
            }
            let runB = {
                Clocks.measureThread {
                    for _ in 0..<passes { for key in keys { sumB &+= baseline.value(forKey: key) ?? -1 } }
                }
            }
            let a: TimeSample, b: TimeSample
            if iteration % 2 == 0 { a = runA(); b = runB() } else { b = runB(); a = runA() }
            precondition(sumA == sumB, "the two sides disagree")
            blackHole(sumA)
            benchmark.measurement(memoryLookupsWebImage, Int(lookupsPerSide / a.cpu / 1000))
            benchmark.measurement(memoryLookupsBaseline, Int(lookupsPerSide / b.cpu / 1000))
            let ratio = a.permille(over: b)
            benchmark.measurement(memoryRatioCPU, ratio.cpu)
            benchmark.measurement(memoryRatioWall, ratio.wall)
            if benchmark.isMeasured {
                memorySamples.record(a.cpu / max(b.cpu, 1e-9), as: "cpu")
                memorySamples.record(a.wall / b.wall, as: "wall")
            }
        }
    } teardown: {
        guard let cpu = memorySamples.median("cpu"), let wall = memorySamples.median("wall") else { return }
        BenchmarkFigure.write([BenchmarkFigure(
            id: "cache-memory-hit", figure: "`MemoryCache` hit",
            value: String(
                format: "%.2f× the time (CPU; %.2f× wall), medians of %d interleaved iterations",
                cpu, wall, memorySamples.values("cpu").count
            ),
            ratio: cpu, baseline: "`Mutex<Dictionary>` lookup", target: "≤ 1.5×", met: BenchmarkFigure.met(cpu <= 1.5),
            command: figureCommand
        )])
    }

    // 2. Disk cache, 100 KB entries: storeSync / dataSync vs POSIX write+rename / open+read+close.
    let writeSamples = FigureSamples()
    let readSamples = FigureSamples()

    Benchmark(
        "Disk cache write 100 KB: DiskCache.storeSync vs POSIX write+rename",
        configuration: pairConfiguration([diskWriteWebImage, diskWriteBaseline, diskWriteRatioWall, diskWriteRatioCPU])
    ) { benchmark in
        for iteration in benchmark.scaledIterations {
            let a: TimeSample, b: TimeSample
            if iteration % 2 == 0 {
                a = try Clocks.measureThread { try disk.writeWebImage() }
                b = Clocks.measureThread { disk.writeBaseline() }
            } else {
                b = Clocks.measureThread { disk.writeBaseline() }
                a = try Clocks.measureThread { try disk.writeWebImage() }
            }
            benchmark.measurement(diskWriteWebImage, Int(megabytes / a.wall))
            benchmark.measurement(diskWriteBaseline, Int(megabytes / b.wall))
            let ratio = a.permille(over: b)
            benchmark.measurement(diskWriteRatioWall, ratio.wall)
            benchmark.measurement(diskWriteRatioCPU, ratio.cpu)
            if benchmark.isMeasured {
                writeSamples.record(b.wall / a.wall, as: "wall")
                writeSamples.record(b.cpu / max(a.cpu, 1e-9), as: "cpu")
            }
        }
    } teardown: {
        disk.remove()
        writeDiskFigure(
            writeSamples, id: "cache-disk-write", figure: "`DiskCache` 100 KB writes", baseline: "POSIX write + rename",
            target: "≥ 70 %", floor: 0.7
        )
    }

    Benchmark(
        "Disk cache read 100 KB: DiskCache.dataSync vs POSIX open+read+close",
        configuration: pairConfiguration([diskReadWebImage, diskReadBaseline, diskReadRatioWall, diskReadRatioCPU])
    ) { benchmark in
        for iteration in benchmark.scaledIterations {
            var bytesA = 0, bytesB = 0
            let a: TimeSample, b: TimeSample
            if iteration % 2 == 0 {
                a = Clocks.measureThread { bytesA = disk.readWebImage() }
                b = Clocks.measureThread { bytesB = disk.readBaseline() }
            } else {
                b = Clocks.measureThread { bytesB = disk.readBaseline() }
                a = Clocks.measureThread { bytesA = disk.readWebImage() }
            }
            precondition(bytesA == entrySize * entriesPerIteration && bytesA == bytesB, "short read: \(bytesA) / \(bytesB)")
            benchmark.measurement(diskReadWebImage, Int(megabytes / a.wall))
            benchmark.measurement(diskReadBaseline, Int(megabytes / b.wall))
            let ratio = a.permille(over: b)
            benchmark.measurement(diskReadRatioWall, ratio.wall)
            benchmark.measurement(diskReadRatioCPU, ratio.cpu)
            if benchmark.isMeasured {
                readSamples.record(b.wall / a.wall, as: "wall")
                readSamples.record(b.cpu / max(a.cpu, 1e-9), as: "cpu")
            }
        }
    } setup: {
        try disk.writeWebImage()
        disk.writeBaseline()
    } teardown: {
        disk.remove()
        writeDiskFigure(
            readSamples, id: "cache-disk-read", figure: "`DiskCache` 100 KB reads", baseline: "POSIX open/read",
            target: "≥ 80 %", floor: 0.8
        )
    }
}
