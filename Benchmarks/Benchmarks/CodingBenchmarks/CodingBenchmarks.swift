import Benchmark
import BenchmarkSupport

// WebImage's decoder against the same work done by calling libvips directly.
// Each pair runs the same input through both sides (see CodingCase); README.md has
// the figures measured on the project's machine.

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
/// start and stop, with the exact high-water mark recorded after it.
func memoryBenchmark(_ name: String, _ codingCase: CodingCase) {
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
        }
    } setup: {
        try codingCase.prepare()
    }
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
    memoryBenchmark("Peak memory: 24 MP JPEG → 256 px thumbnail: WebImage", .thumbnailWebImage)
    memoryBenchmark("Peak memory: 24 MP JPEG → 256 px thumbnail: libvips direct", .thumbnailDirect)
}
