// Auto quality and best format over a corpus of real images, at a web size: what
// `quality:auto` saves against a fixed quality 80 and at what score, how many encodes a
// variant takes, and what `format:best` costs against one encode.
//
//   swift build -c release --product QualityProfile
//   .build/release/QualityProfile [DIR…]   # default: the 12 photos of mate-backgrounds
//                                          # (/usr/share/backgrounds/mate/nature, apt install mate-backgrounds)
//
// Every image is decoded once, fitted into 1024 × 1024 (shrink-on-load), then encoded
// from that one decode by each side; times are the encodes' (and decodes and SSIMs of
// the search), medians of 3 runs. The summary's figures go to Benchmarks/results/quality-*.json
// (BenchmarkFigure).
import BenchmarkSupport
import Foundation
import WebImage

let directories = CommandLine.arguments.count > 1 ? Array(CommandLine.arguments.dropFirst()) : ["/usr/share/backgrounds/mate/nature"]
var files: [String] = []
for directory in directories {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
    files += names.filter { [".jpg", ".jpeg", ".png", ".webp"].contains(where: $0.lowercased().hasSuffix) }.sorted().map { directory + "/" + $0 }
}
guard !files.isEmpty else {
    print("no images in \(directories.joined(separator: ", ")): apt install mate-backgrounds, or name a directory")
    exit(1)
}

let coder = VipsCoder.shared
func seconds(_ body: () throws -> Void) rethrows -> Double {
    var runs: [Double] = []
    for _ in 0..<3 {
        let start = ContinuousClock.now
        try body()
        let elapsed = ContinuousClock.now - start
        runs.append(Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
    }
    return runs.sorted()[1]
}
func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
}
func score(_ image: Image, _ data: Data) throws -> Double {
    try ImageSimilarity.ssim(image, try coder.decode(data, options: ImageDecodeOptions()))
}
/// `format:best` as the manager runs it: each candidate (with or without the search), the smallest kept.
func best(_ image: Image, _ formats: [ImageFormat], auto: AutoQuality?) throws -> (EncodeChoice, encodes: Int) {
    var chosen: EncodeChoice?
    var encodes = 0
    for format in formats where !(image.hasAlpha && format == .jpeg) {
        let choice = try QualitySearch.encode(image, options: ImageEncodeOptions(format: format, quality: 80), auto: auto, coder: coder)
        encodes += choice.encodes
        let meets = { (c: EncodeChoice) in (c.score ?? 1) >= (auto?.target ?? 0) }
        if let current = chosen {
            if meets(choice) != meets(current) ? meets(choice) : choice.data.count < current.data.count { chosen = choice }
        } else {
            chosen = choice
        }
    }
    return (chosen!, encodes)
}

struct Sample {
    let name: String
    let image: Image
    let fixed: Data
    let fixedScore: Double
    let fixedTime: Double
}
var samples: [Sample] = []
for file in files {
    let data = try Data(contentsOf: URL(fileURLWithPath: file))
    var options = ImageDecodeOptions()
    options.thumbnailPixelSize = PixelSize(width: 1024, height: 1024)
    options.firstFrameOnly = true
    let image = try coder.decode(data, options: options)
    let fixedOptions = ImageEncodeOptions(format: image.hasAlpha ? .webp : .jpeg, quality: 80)
    var fixed = Data()
    let fixedTime = try seconds { fixed = try coder.encode(image, options: fixedOptions) }
    samples.append(Sample(name: URL(fileURLWithPath: file).lastPathComponent, image: image, fixed: fixed, fixedScore: try score(image, fixed), fixedTime: fixedTime))
}
let medianFixedScore = median(samples.map(\.fixedScore))
let auto = AutoQuality()
let matchedTarget = (medianFixedScore * 10_000).rounded() / 10_000
// A fixed quality is chosen for the hardest image; auto quality at q80's worst score keeps
// every image at least there: the bytes saved "at equal or better score".
let worstFixedScore = samples.map(\.fixedScore).min()!
let floorTarget = (worstFixedScore * 10_000).rounded(.up) / 10_000
print("auto quality: default target SSIM \(auto.target), qualities \(auto.qualities), at most \(auto.maxEncodes) encodes; \(files.count) images fitted into 1024 × 1024")
print("SSIM of JPEG q80 over the corpus: median \(String(format: "%.4f", medianFixedScore)) (the 'median-matched' target below), worst \(String(format: "%.4f", worstFixedScore)) (the 'worst-matched' target)\n")
print("| image | size | q80 bytes | q80 SSIM | auto q | auto bytes | auto SSIM | bytes vs q80 | median-matched q | bytes vs q80 | auto encodes | auto time vs q80 encode | best (q80) | best bytes vs q80 | best time vs q80 encode |")
print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
var autoRatios: [Double] = [], matchedRatios: [Double] = [], scoreDeltas: [Double] = [], matchedScores: [Double] = [], encodeCounts: [Double] = []
var autoCost: [Double] = [], bestRatios: [Double] = [], bestCost: [Double] = [], bestAutoRatios: [Double] = [], bestAutoCost: [Double] = []
var totals = (fixed: 0, auto: 0, matched: 0, floor: 0)
var floorRatios: [Double] = [], floorScoreDeltas: [Double] = []
for sample in samples {
    let image = sample.image
    let fixedOptions = ImageEncodeOptions(format: image.hasAlpha ? .webp : .jpeg, quality: 80)
    var chosen: EncodeChoice!
    let autoTime = try seconds { chosen = try QualitySearch.encode(image, options: fixedOptions, auto: auto, coder: coder) }
    let matched = try QualitySearch.encode(image, options: fixedOptions, auto: AutoQuality(target: matchedTarget), coder: coder)
    let floor = try QualitySearch.encode(image, options: fixedOptions, auto: AutoQuality(target: floorTarget), coder: coder)
    totals.floor += floor.data.count
    floorRatios.append(Double(floor.data.count) / Double(sample.fixed.count))
    floorScoreDeltas.append((floor.score ?? 0) - worstFixedScore)
    var bestChoice: (EncodeChoice, encodes: Int)!
    let candidates: [ImageFormat] = [.jpeg, .png, .webp, .avif]
    let bestTime = try seconds { bestChoice = try best(image, candidates, auto: nil) }
    var bestAuto: (EncodeChoice, encodes: Int)!
    let bestAutoTime = try seconds { bestAuto = try best(image, candidates, auto: auto) }
    let fixedCount = Double(sample.fixed.count)
    totals.fixed += sample.fixed.count
    totals.auto += chosen.data.count
    totals.matched += matched.data.count
    autoRatios.append(Double(chosen.data.count) / fixedCount)
    matchedRatios.append(Double(matched.data.count) / fixedCount)
    matchedScores.append(matched.score ?? 0)
    scoreDeltas.append((chosen.score ?? 0) - sample.fixedScore)
    encodeCounts.append(Double(chosen.encodes))
    autoCost.append(autoTime / sample.fixedTime)
    bestRatios.append(Double(bestChoice.0.data.count) / fixedCount)
    bestCost.append(bestTime / sample.fixedTime)
    bestAutoRatios.append(Double(bestAuto.0.data.count) / fixedCount)
    bestAutoCost.append(bestAutoTime / sample.fixedTime)
    print("| \(sample.name) | \(image.pixelSize) | \(sample.fixed.count) | \(String(format: "%.4f", sample.fixedScore)) | \(chosen.quality.map(String.init) ?? "-") | \(chosen.data.count) | \(String(format: "%.4f", chosen.score ?? 0)) | \(String(format: "%.2f", autoRatios.last!)) | \(matched.quality.map(String.init) ?? "-") | \(String(format: "%.2f", matchedRatios.last!)) | \(chosen.encodes) | \(String(format: "%.0f", autoCost.last!))× | \(bestChoice.0.format.rawValue) | \(String(format: "%.2f", bestRatios.last!)) | \(String(format: "%.0f", bestCost.last!))× |")
}
func summary(_ name: String, _ values: [Double], worst: (Double, Double) -> Bool, format: String = "%.2f") {
    let worstValue = values.sorted(by: worst).first ?? .nan
    print("| \(name) | \(String(format: format, median(values))) | \(String(format: format, worstValue)) |")
}
print("\n| figure | median | worst |")
print("| --- | --- | --- |")
summary("auto (default target) bytes ÷ q80 bytes", autoRatios, worst: >)
summary("auto (default target) SSIM − q80 SSIM", scoreDeltas, worst: <, format: "%+.4f")
summary("auto (median-matched target) bytes ÷ q80 bytes", matchedRatios, worst: >)
summary("auto (median-matched target) SSIM", matchedScores, worst: <, format: "%.4f")
summary("auto (worst-matched target) bytes ÷ q80 bytes", floorRatios, worst: >)
summary("auto (worst-matched target) SSIM − q80's worst SSIM", floorScoreDeltas, worst: <, format: "%+.4f")
summary("encodes per auto variant", encodeCounts, worst: >, format: "%.0f")
summary("auto time ÷ one q80 encode", autoCost, worst: >, format: "%.0f")
summary("best (q80) bytes ÷ JPEG q80 bytes", bestRatios, worst: >)
summary("best (q80) time ÷ one q80 encode", bestCost, worst: >, format: "%.0f")
summary("best + auto bytes ÷ JPEG q80 bytes", bestAutoRatios, worst: >)
summary("best + auto time ÷ one q80 encode", bestAutoCost, worst: >, format: "%.0f")
print("\ntotal bytes over the corpus ÷ q80's: auto (default target) \(String(format: "%.2f", Double(totals.auto) / Double(totals.fixed))), auto (median-matched target) \(String(format: "%.2f", Double(totals.matched) / Double(totals.fixed))), auto (worst-matched target) \(String(format: "%.2f", Double(totals.floor) / Double(totals.fixed)))")

/// The worst of `values`: the largest, or the smallest with `by: <`.
func worst(_ values: [Double], by order: (Double, Double) -> Bool = (>)) -> Double { values.sorted(by: order).first ?? .nan }
let photos = "\(samples.count) photos (1024 px)"
BenchmarkFigure.write([
    BenchmarkFigure(
        id: "quality-auto-worst-matched", figure: "auto quality aimed at JPEG q80's worst SSIM over \(photos)",
        value: String(
            format: "every photo at or above it (%+.4f at worst); median %.2f× q80's bytes (worst %.2f×), %.2f× in total",
            worst(floorScoreDeltas, by: <), median(floorRatios), worst(floorRatios), Double(totals.floor) / Double(totals.fixed)
        ),
        ratio: median(floorRatios), baseline: "JPEG quality 80"
    ),
    BenchmarkFigure(
        id: "quality-auto-default-target", figure: "auto quality at the default target (SSIM \(auto.target)) over \(photos)",
        value: String(
            format: "median %.2f× q80's bytes (%.2f–%.2f×), %.2f× in total; SSIM %.3f–%.3f; %.0f encodes, %.0f× one q80 encode by the median (worst %.0f×)",
            median(autoRatios), worst(autoRatios, by: <), worst(autoRatios), Double(totals.auto) / Double(totals.fixed),
            (zip(scoreDeltas, samples).map { $0 + $1.fixedScore }).min() ?? .nan, (zip(scoreDeltas, samples).map { $0 + $1.fixedScore }).max() ?? .nan,
            median(encodeCounts), median(autoCost), worst(autoCost)
        ),
        ratio: median(autoRatios), baseline: "JPEG quality 80"
    ),
    BenchmarkFigure(
        id: "quality-best-format", figure: "`format:best` (JPEG, PNG, WebP, AVIF) over \(photos)",
        value: String(
            format: "at quality 80: median %.2f× JPEG's bytes (worst %.2f×), %.0f× one q80 encode (worst %.0f×); with auto quality: %.2f× (worst %.2f×), %.0f× (worst %.0f×)",
            median(bestRatios), worst(bestRatios), median(bestCost), worst(bestCost),
            median(bestAutoRatios), worst(bestAutoRatios), median(bestAutoCost), worst(bestAutoCost)
        ),
        ratio: median(bestRatios), baseline: "JPEG quality 80"
    ),
])
