import Benchmark
import Foundation
import WebImage

// WebImage's decoder against the same work done by calling libvips directly.
// Each pair runs the same input through both sides; the README has the figures.

/// The exact peak resident memory one decode adds to the process (see ``PeakResident``).
var peakAboveBaseline: BenchmarkMetric { .custom("Peak resident above baseline (VmHWM)") }

let thumbnailBox = PixelSize(width: 256, height: 256)
let thumbnailOptions = ImageDecodeOptions(thumbnailPixelSize: thumbnailBox)
let fullOptions = ImageDecodeOptions()

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
        metrics: [.peakMemoryResident, .peakMemoryResidentDelta, peakAboveBaseline, .mallocCountTotal, .mallocBytesCount, .wallClock],
        units: [.peakMemoryResident: .mega, .peakMemoryResidentDelta: .mega, peakAboveBaseline: .mega],
        warmupIterations: 1,
        maxDuration: .seconds(3),
        maxIterations: 10
    )
}

/// Starts libvips and builds the inputs before anything is measured, and checks that
/// both sides produce the same size, so the pair compares like with like.
func prepare(_ data: @autoclosure () -> Data, check: (Data) throws -> Void) throws {
    try DirectVips.start()
    try check(data())
}

func checkThumbnail(_ jpeg: Data) throws {
    let ours = try VipsCoder.shared.decode(jpeg, options: thumbnailOptions).pixelSize
    let direct = try DirectVips.thumbnail(jpeg, width: thumbnailBox.width, height: thumbnailBox.height)
    guard ours == direct else {
        throw DirectVips.Failure(description: "WebImage made \(ours), libvips \(direct)")
    }
}

func checkFullDecode(_ png: Data) throws {
    let ours = try VipsCoder.shared.decode(png, options: fullOptions).pixelSize
    let direct = try DirectVips.decode(png)
    guard ours == direct, ours == PixelSize(width: 2000, height: 2000) else {
        throw DirectVips.Failure(description: "WebImage made \(ours), libvips \(direct)")
    }
}

/// Runs one decode between explicit start and stop, then records the exact peak.
func measurePeak(_ benchmark: Benchmark, _ decode: () throws -> Void) {
    let baseline = PeakResident.reset()
    benchmark.startMeasurement()
    do {
        try decode()
    } catch {
        benchmark.error("\(error)")
    }
    benchmark.stopMeasurement()
    if let baseline, let peak = PeakResident.highWaterMark() {
        benchmark.measurement(peakAboveBaseline, max(0, peak - baseline))
    }
}

let benchmarks: @Sendable () -> Void = {
    // MARK: 1. Thumbnail decode, 24 MP JPEG → 256 px

    Benchmark("Thumbnail decode 24 MP JPEG → 256 px: WebImage", configuration: speed) { benchmark in
        do {
            blackHole(try VipsCoder.shared.decode(Fixtures.jpeg24MP, options: thumbnailOptions))
        } catch {
            benchmark.error("\(error)")
        }
    } setup: {
        try prepare(Fixtures.jpeg24MP, check: checkThumbnail)
    }

    Benchmark("Thumbnail decode 24 MP JPEG → 256 px: libvips direct", configuration: speed) { benchmark in
        do {
            blackHole(try DirectVips.thumbnail(Fixtures.jpeg24MP, width: thumbnailBox.width, height: thumbnailBox.height))
        } catch {
            benchmark.error("\(error)")
        }
    } setup: {
        try prepare(Fixtures.jpeg24MP, check: checkThumbnail)
    }

    // MARK: 2. Full decode, 4 MP PNG

    Benchmark("Full decode 4 MP PNG: WebImage", configuration: speed) { benchmark in
        do {
            blackHole(try VipsCoder.shared.decode(Fixtures.png4MP, options: fullOptions))
        } catch {
            benchmark.error("\(error)")
        }
    } setup: {
        try prepare(Fixtures.png4MP, check: checkFullDecode)
    }

    Benchmark("Full decode 4 MP PNG: libvips direct", configuration: speed) { benchmark in
        do {
            blackHole(try DirectVips.decode(Fixtures.png4MP))
        } catch {
            benchmark.error("\(error)")
        }
    } setup: {
        try prepare(Fixtures.png4MP, check: checkFullDecode)
    }

    // For reference: what a sequential-access load saves (no intermediate full-size copy).
    Benchmark("Full decode 4 MP PNG: libvips direct, access=sequential", configuration: speed) { benchmark in
        do {
            blackHole(try DirectVips.decode(Fixtures.png4MP, sequential: true))
        } catch {
            benchmark.error("\(error)")
        }
    } setup: {
        try prepare(Fixtures.png4MP, check: checkFullDecode)
    }

    // MARK: 3. Peak memory, 24 MP JPEG → 256 px thumbnail

    Benchmark("Peak memory: 24 MP JPEG → 256 px thumbnail: WebImage", configuration: memory) { benchmark in
        measurePeak(benchmark) {
            blackHole(try VipsCoder.shared.decode(Fixtures.jpeg24MP, options: thumbnailOptions))
        }
    } setup: {
        try prepare(Fixtures.jpeg24MP, check: checkThumbnail)
    }

    Benchmark("Peak memory: 24 MP JPEG → 256 px thumbnail: libvips direct", configuration: memory) { benchmark in
        measurePeak(benchmark) {
            blackHole(try DirectVips.thumbnail(Fixtures.jpeg24MP, width: thumbnailBox.width, height: thumbnailBox.height))
        }
    } setup: {
        try prepare(Fixtures.jpeg24MP, check: checkThumbnail)
    }
}
