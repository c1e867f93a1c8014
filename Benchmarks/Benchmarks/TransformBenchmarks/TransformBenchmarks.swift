import Benchmark
import BenchmarkSupport

// WebImage's transformers against the same work done by calling libvips directly (see
// BenchmarkSupport/TransformCase for what each side runs). Each pair is interleaved A/B:
// every iteration times both sides in turn (the order alternates), with the whole
// process's CPU time (libvips computes on its worker threads), and records each side's
// rate and the ratio WebImage / libvips ×1000 (1000 = equal; below 1000, WebImage is faster).
// At the end of its run a pair with a stated figure writes it, the medians of those ratios,
// to Benchmarks/results/<id>.json (BenchmarkFigure): transform-resize-fill, transform-blur.

extension Benchmark {
    /// Whether this iteration counts: package-benchmark drops the warm-up iterations' measurements.
    var isMeasured: Bool { currentIteration >= configuration.warmupIterations }
}

/// The figure a pair states: its id and the words of `Benchmarks/results/<id>.json`.
struct PairFigure: Sendable {
    var id: String
    var figure: String
    var baseline: String
}

/// A custom count metric; `larger` when a larger value is better.
func metric(_ name: String, larger: Bool = false) -> BenchmarkMetric {
    .custom(name, polarity: larger ? .prefersLarger : .prefersSmaller, useScalingFactor: false)
}

/// One interleaved pair: `ours` against `theirs`, `runs` transforms a side per iteration.
/// With `figure`, its teardown writes the pair's figure against the target ≤ 1.05× (CPU).
func pairBenchmark(
    _ name: String, ours: TransformCase, theirs: TransformCase, runs: Int, maxDuration: Int = 6, figure: PairFigure? = nil
) {
    let oursRate = metric("WebImage ops/s ×10", larger: true)
    let theirsRate = metric("libvips direct ops/s ×10", larger: true)
    let ratioWall = metric("WebImage / libvips, wall ×1000")
    let ratioCPU = metric("WebImage / libvips, CPU ×1000")
    let custom = [oursRate, theirsRate, ratioWall, ratioCPU]
    var units: [BenchmarkMetric: BenchmarkUnits] = [:]
    for metric in custom { units[metric] = .count }
    let configuration = Benchmark.Configuration(
        metrics: [.wallClock, .cpuTotal, .mallocCountTotal] + custom,
        units: units,
        warmupIterations: 2,
        maxDuration: .seconds(maxDuration),
        maxIterations: 200
    )
    let samples = FigureSamples()
    Benchmark(name, configuration: configuration) { benchmark in
        for iteration in benchmark.scaledIterations {
            let side = { (transform: TransformCase) in
                try Clocks.measureBlocking {
                    for _ in 0..<runs { blackHole(try transform.run()) }
                }
            }
            let a: TimeSample, b: TimeSample
            if iteration % 2 == 0 {
                a = try side(ours); b = try side(theirs)
            } else {
                b = try side(theirs); a = try side(ours)
            }
            // ops/s ×10, so that rates under 10 ops/s keep a digit after the point.
            benchmark.measurement(oursRate, Int((Double(runs) * 10 / a.wall).rounded()))
            benchmark.measurement(theirsRate, Int((Double(runs) * 10 / b.wall).rounded()))
            let ratio = a.permille(over: b)
            benchmark.measurement(ratioWall, ratio.wall)
            benchmark.measurement(ratioCPU, ratio.cpu)
            if benchmark.isMeasured {
                samples.record(a.wall / b.wall, as: "wall")
                samples.record(a.cpu / max(b.cpu, 1e-9), as: "cpu")
                samples.record(Double(runs) / a.wall, as: "rate")
            }
        }
    } setup: {
        try ours.prepare()
        try theirs.prepare()
    } teardown: {
        guard let figure, let wall = samples.median("wall"), let cpu = samples.median("cpu"),
              let rate = samples.median("rate")
        else { return }
        BenchmarkFigure.write([BenchmarkFigure(
            id: figure.id, figure: figure.figure,
            value: String(
                format: "%.3f× wall, %.3f× CPU (%.1f ops/s; medians of %d interleaved iterations)",
                wall, cpu, rate, samples.values("wall").count
            ),
            ratio: cpu, baseline: figure.baseline, target: "≤ 1.05×", met: BenchmarkFigure.met(cpu <= 1.05),
            command: "swift package benchmark --target TransformBenchmarks"
        )])
    }
}

let benchmarks: @Sendable () -> Void = {
    // 1. 12 MP JPEG bytes → 400 × 300 fill: shrink-on-load decode + ResizeTransformer vs vips_thumbnail_buffer(crop).
    pairBenchmark(
        "Resize-fill 12 MP JPEG → 400×300 (thumbnail decode + ResizeTransformer) vs vips_thumbnail_buffer",
        ours: .resizeFillWebImage, theirs: .resizeFillDirect, runs: 4,
        figure: PairFigure(
            id: "transform-resize-fill",
            figure: "resize-fill 12 MP JPEG → 400 × 300 (thumbnail decode + `ResizeTransformer`)",
            baseline: "`vips_thumbnail_buffer`"
        )
    )
    // 2. Gaussian blur, sigma 5, of 1 MP RGB in memory.
    pairBenchmark(
        "Blur sigma 5, 1 MP RGB in memory: BlurTransformer vs vips_gaussblur",
        ours: .blurWebImage, theirs: .blurDirect, runs: 4,
        figure: PairFigure(
            id: "transform-blur", figure: "blur σ 5 of a 1 MP image", baseline: "`vips_gaussblur`"
        )
    )
}
