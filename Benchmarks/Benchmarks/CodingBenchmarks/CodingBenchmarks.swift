import Benchmark
import BenchmarkSupport
import Foundation

// WebImage's decoder against the same work done by calling libvips directly.
// Each pair runs the same input through both sides (see CodingCase). At the end of its run
// WebImage's peak-memory benchmark writes its figure, the median peak above the process
// baseline, to Benchmarks/results/coding-thumbnail-peak-memory.json (BenchmarkFigure).

extension Benchmark {
    /// Whether this iteration counts: package-benchmark drops the warm-up iterations' measurements.
    var isMeasured: Bool { currentIteration >= configuration.warmupIterations }
}

/// The exact peak resident memory one decode adds to the process (see `PeakResident`).
var peakAboveBaseline: BenchmarkMetric { .custom("Peak resident above baseline (VmHWM)") }

/// Speed: a few seconds a benchmark, so the whole suite stays short.
var speed: Benchmark.Configuration {
    .init(
        metrics: [.throughput, .wallClock, .cpuTotal, .mallocCountTotal, .peakMemoryResident],
        warmupIterations: 3,
        maxDuration: .seconds(4),
        maxIterations: 500
    )
}

/// Memory: a handful of single decodes, each reporting its own peak.
var memory: Benchmark.Configuration {
    .init(
        metrics: [
            .peakMemoryResident, .peakMemoryResidentDelta, peakAboveBaseline,
            .mallocCountTotal, .mallocBytesCount, .wallClock,
        ],
        units: [.peakMemoryResident: .mega, .peakMemoryResidentDelta: .mega, peakAboveBaseline: .mega],
        warmupIterations: 1,
        maxDuration: .seconds(3),
        maxIterations: 10
    )
}

/// A throughput benchmark of one case.
func speedBenchmark(_ name: String, _ codingCase: CodingCase) {
    Benchmark(name, configuration: speed) { benchmark in
        do {
            blackHole(try codingCase.run())
        } catch {
            benchmark.error("\(error)")
        }
    } setup: {
        try codingCase.prepare()
    }
}

/// A peak-memory benchmark of one case: one decode an iteration, between an explicit
/// start and stop, with the exact high-water mark recorded after it. With `figure`, its
/// teardown writes the figure that function makes of the peaks (bytes, one a decode).
func memoryBenchmark(_ name: String, _ codingCase: CodingCase, figure: (@Sendable ([Double]) -> BenchmarkFigure?)? = nil) {
    let samples = FigureSamples()
    Benchmark(name, configuration: memory) { benchmark in
        let baseline = PeakResident.reset()
        benchmark.startMeasurement()
        do {
            blackHole(try codingCase.run())
        } catch {
            benchmark.error("\(error)")
        }
        benchmark.stopMeasurement()
        if let baseline, let peak = PeakResident.highWaterMark() {
            benchmark.measurement(peakAboveBaseline, max(0, peak - baseline))
            if benchmark.isMeasured { samples.record(Double(max(0, peak - baseline)), as: "peak") }
        }
    } setup: {
        try codingCase.prepare()
    } teardown: {
        if let figure, let stated = figure(samples.values("peak")) { BenchmarkFigure.write([stated]) }
    }
}

/// The thumbnail decode's peak-memory figure: the median peak above the process baseline
/// (and the largest) over the measured decodes. The target, < 40 MB, is met when every
/// decode stays under it.
func thumbnailPeakFigure(_ peaks: [Double]) -> BenchmarkFigure? {
    guard let median = FigureSamples.median(peaks), let largest = peaks.max() else { return nil }
    let megabyte = 1_000_000.0
    let stated = { (bytes: Double) in bytes < megabyte ? "< 1 MB" : String(format: "%.1f MB", bytes / megabyte) }
    let value =
        largest < megabyte
        ? "< 1 MB above the process baseline (each of \(peaks.count) decodes)"
        : "\(stated(median)) above the process baseline (median of \(peaks.count) decodes, at most \(stated(largest)))"
    return BenchmarkFigure(
        id: "coding-thumbnail-peak-memory", figure: "peak memory of a 24 MP → 256 px thumbnail decode", value: value,
        baseline: "`vips_thumbnail_buffer`: < 1 MB", target: "< 40 MB", met: BenchmarkFigure.met(largest < 40 * megabyte),
        command: "swift package benchmark --target CodingBenchmarks"
    )
}

let benchmarks: @Sendable () -> Void = {
    // 1. Thumbnail decode: 24 MP JPEG → 256 × 256 box (shrink-on-load, then resample).
    speedBenchmark("Thumbnail decode 24 MP JPEG → 256 px: WebImage", .thumbnailWebImage)
    speedBenchmark("Thumbnail decode 24 MP JPEG → 256 px: libvips direct", .thumbnailDirect)

    // 2. Full decode: 4 MP PNG into memory.
    speedBenchmark("Full decode 4 MP PNG: WebImage", .pngWebImage)
    speedBenchmark("Full decode 4 MP PNG: libvips direct", .pngDirect)
    // For reference: the same load with access=sequential, the access WebImage asks for when
    // the image needs no EXIF turn.
    speedBenchmark("Full decode 4 MP PNG: libvips direct, access=sequential", .pngDirectSequential)

    // 3. Peak resident memory of one 24 MP JPEG → 256 px thumbnail decode.
    memoryBenchmark("Peak memory: 24 MP JPEG → 256 px thumbnail: WebImage", .thumbnailWebImage, figure: thumbnailPeakFigure)
    memoryBenchmark("Peak memory: 24 MP JPEG → 256 px thumbnail: libvips direct", .thumbnailDirect)
}
