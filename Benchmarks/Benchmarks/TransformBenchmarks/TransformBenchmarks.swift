import Benchmark
import BenchmarkSupport

// WebImage's transformers against the same work done by calling libvips directly (see
// BenchmarkSupport/TransformCase for what each side runs). Each pair is interleaved A/B:
// every iteration times both sides in turn (the order alternates), with the whole
// process's CPU time (libvips computes on its worker threads), and records each side's
// rate and the ratio WebImage / libvips ×1000 (1000 = equal; below, WebImage was faster).

/// A custom count metric; `larger` when a larger value is better.
func metric(_ name: String, larger: Bool = false) -> BenchmarkMetric {
    .custom(name, polarity: larger ? .prefersLarger : .prefersSmaller, useScalingFactor: false)
}

/// One interleaved pair: `ours` against `theirs`, `runs` transforms a side per iteration.
func pairBenchmark(_ name: String, ours: TransformCase, theirs: TransformCase, runs: Int, maxDuration: Int = 6) {
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
        }
    } setup: {
        try ours.prepare()
        try theirs.prepare()
    }
}

let benchmarks: @Sendable () -> Void = {
    // 1. 12 MP JPEG bytes → 400 × 300 fill: shrink-on-load decode + ResizeTransformer vs vips_thumbnail_buffer(crop).
    pairBenchmark(
        "Resize-fill 12 MP JPEG → 400×300 (thumbnail decode + ResizeTransformer) vs vips_thumbnail_buffer",
        ours: .resizeFillWebImage, theirs: .resizeFillDirect, runs: 4
    )
    // 2. The same with only `context.transformer` set: the manager asks the transformer for
    //    a shrink-on-load box and decodes into it.
    pairBenchmark(
        "Resize-fill 12 MP JPEG → 400×300 (transformer only: shrink-on-load box + ResizeTransformer) vs vips_thumbnail_buffer",
        ours: .resizeFillTransformerOnlyWebImage, theirs: .resizeFillDirect, runs: 4
    )
    // 3. For reference: a full 12 MP decode, then the transformer.
    pairBenchmark(
        "Resize-fill 12 MP JPEG → 400×300 (full decode + ResizeTransformer) vs vips_thumbnail_buffer",
        ours: .resizeFillFullDecodeWebImage, theirs: .resizeFillDirect, runs: 1, maxDuration: 8
    )
    // 4. The transformer alone: the 12 MP JPEG decoded in memory → 400 × 300 fill.
    pairBenchmark(
        "Resize-fill 12 MP decoded in memory → 400×300: ResizeTransformer vs vips_thumbnail_image",
        ours: .resizeMemoryWebImage, theirs: .resizeMemoryDirect, runs: 2
    )
    // 5. Gaussian blur, sigma 5, of 1 MP RGB in memory.
    pairBenchmark(
        "Blur sigma 5, 1 MP RGB in memory: BlurTransformer vs vips_gaussblur",
        ours: .blurWebImage, theirs: .blurDirect, runs: 4
    )
}
