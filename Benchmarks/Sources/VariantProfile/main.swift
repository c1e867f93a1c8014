// Case 2 of Benchmarks/proxy/pipeline.sh without the server: cold encoded variants of
// originals already in the disk cache, made through `ImageManager.loadVariant` with a
// `WorkLimiter` of THREADS workers and THREADS tasks asking at once, against libvips'
// `vips_thumbnail_buffer` + `vips_jpegsave_buffer` on THREADS threads over the same bytes.
// What the manager adds to the codec (cache read and write, coalescing, the limiter, the
// hand-offs between tasks and threads) shows here apart from HTTP.
//
//   swift build -c release --product VariantProfile
//   .build/release/VariantProfile [THREADS [SECONDS [ROUNDS [FILE…]]]]
//   # defaults: 2 × cores, 10 s, 3 rounds, the 12 photos of mate-backgrounds
//   SIDE=manager|direct .build/release/VariantProfile …   # one side only, e.g. under perf
//
// Each variant is `ResizeTransformer(300 × 300, .fit)` answered as JPEG quality 80, with
// a key no variant had before (as the proxy's `cb:` option gives). A third side, the
// floor, makes the same variants with the proxy's own libvips calls (proxy/proxy_sequence.h)
// and the file work of a cached original (the original read from a file, the JPEG written
// through a temporary file), in C: what the manager cannot go below while it decodes into
// memory. The sides alternate (manager, direct, floor); each round prints images/s and
// process CPU per image. The cache is a directory of its own under TMPDIR, removed at the
// end. With all sides, the medians go to Benchmarks/results/variant-manager.json
// (BenchmarkFigure).
import BenchmarkSupport
import Foundation
import WebImage

let arguments = Array(CommandLine.arguments.dropFirst())
let threads = arguments.count > 0 ? Int(arguments[0]) ?? 4 : 2 * ProcessInfo.processInfo.activeProcessorCount
let seconds = arguments.count > 1 ? Double(arguments[1]) ?? 10 : 10
let rounds = arguments.count > 2 ? Int(arguments[2]) ?? 3 : 3
var files = Array(arguments.dropFirst(3))
if files.isEmpty {
    let directory = "/usr/share/backgrounds/mate/nature"
    files = ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).filter { $0.hasSuffix(".jpg") }.sorted().map { directory + "/" + $0 }
}
guard !files.isEmpty else {
    print("no photos: apt install mate-backgrounds, or name JPEG files")
    exit(1)
}
try DirectVips.start()
let sources = try files.map { try Data(contentsOf: URL(fileURLWithPath: $0)) }

/// The resize of the proxy's `rs:fit:300:300`, under a key of its own per request.
struct UniqueResize: ImageTransformer {
    let inner = ResizeTransformer(size: PixelSize(width: 300, height: 300), mode: .fit)
    let id: String
    var key: String { inner.key + "-" + id }
    func transform(_ image: Image) throws(ImageError) -> Image { try inner.transform(image) }
    func shrinkOnLoadSize(forSourceSize sourceSize: PixelSize) -> PixelSize? { inner.shrinkOnLoadSize(forSourceSize: sourceSize) }
}

var config = CacheConfig()
config.rootDirectory = NSTemporaryDirectory() + "variant-profile-\(getpid())"
config.shouldCacheImagesInMemory = false
let cache = ImageCache(config: config)
defer { try? FileManager.default.removeItem(atPath: config.rootDirectory) }
let urls = files.indices.map { URL(string: "https://photos.invalid/\($0).jpg")! }
for (url, data) in zip(urls, sources) {
    try await cache.store(nil, data: data, forKey: url.absoluteString, cacheType: .disk)
}
let loader = NoNetworkLoader()
let manager = ImageManager(cache: cache, loader: loader, variantWorkLimiter: WorkLimiter(workers: threads, queueSize: 1_000))

/// `body` run by `threads` concurrent loops for `seconds`: the images made, the wall clock
/// and the whole process's CPU time.
func measure(_ body: @escaping @Sendable (_ worker: Int, _ index: Int) async throws -> Void) async throws -> (images: Int, time: TimeSample) {
    let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
    var made = 0
    let time = try await Clocks.measureProcess {
        made = try await withThrowingTaskGroup(of: Int.self) { group in
            for worker in 0..<threads {
                group.addTask {
                    var index = worker
                    while ContinuousClock.now < deadline {
                        try await body(worker, index)
                        index += 1
                    }
                    return index - worker
                }
            }
            return try await group.reduce(0, +)
        }
    }
    return (made, time)
}

let run = UUID().uuidString.prefix(8)
func managerRound(_ round: Int) async throws -> (images: Int, time: TimeSample) {
    try await measure { worker, index in
        let photo = index % urls.count
        let request = VariantRequest(
            url: urls[photo], transformer: UniqueResize(id: "\(run)-\(round)-\(worker)-\(index)"),
            encoding: VariantEncoding(format: .fixed(.jpeg), quality: 80)
        )
        _ = try await manager.loadVariant(request)
    }
}

/// `work` for each image on threads of its own (libvips blocks), `threads` at once.
func onOwnThreads(_ work: @escaping @Sendable (_ worker: Int, _ index: Int) throws -> Void) async throws -> (images: Int, time: TimeSample) {
    let pool = (0..<threads).map { _ in DispatchQueue(label: "direct") }
    return try await measure { worker, index in
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            pool[worker].async { continuation.resume(with: Result { try work(worker, index) }) }
        }
    }
}

/// The direct side: libvips' own thumbnail and JPEG save on the bytes in memory.
func directRound() async throws -> (images: Int, time: TimeSample) {
    try await onOwnThreads { _, index in
        _ = try DirectVips.thumbnailJPEG(sources[index % sources.count], width: 300, height: 300, quality: 80)
    }
}

/// The floor of the manager's side: the proxy's libvips calls on the same threads, with the
/// file work a cold variant of a cached original needs (the original read from a file in
/// TMPDIR, the JPEG written to one), and nothing of the manager.
let floorDirectory = NSTemporaryDirectory() + "variant-profile-floor-\(getpid())"
try FileManager.default.createDirectory(atPath: floorDirectory + "/out", withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(atPath: floorDirectory) }
let floorSources = try sources.indices.map { index in
    let path = floorDirectory + "/\(index).jpg"
    try sources[index].write(to: URL(fileURLWithPath: path))
    return path
}
func floorRound(_ round: Int) async throws -> (images: Int, time: TimeSample) {
    try await onOwnThreads { worker, index in
        try DirectVips.sequenceJPEGWithFiles(
            source: floorSources[index % floorSources.count], output: floorDirectory + "/out/\(round)-\(worker)-\(index).jpg",
            width: 300, height: 300, quality: 80
        )
    }
}

func line(_ name: String, _ result: (images: Int, time: TimeSample)) -> String {
    String(format: "%@ %5d images  %6.1f images/s  %6.2f ms CPU an image", name, result.images, Double(result.images) / result.time.wall, result.time.cpu * 1000 / Double(result.images))
}

print("\(files.count) photos, \(threads) at once, \(Int(seconds)) s a side, \(rounds) rounds")
// SIDE=manager or SIDE=direct runs one side only (for perf); the ratios then compare it with itself.
let side = ProcessInfo.processInfo.environment["SIDE"]
// Warm-up, not measured: libvips start-up and the manager's threads.
if side != "direct" { _ = try await managerRound(-1) }
var ratios: [(rate: Double, cpu: Double)] = []
var floorRatios: [(rate: Double, cpu: Double)] = []
func ratio(_ side: (images: Int, time: TimeSample), to base: (images: Int, time: TimeSample)) -> (rate: Double, cpu: Double) {
    ((Double(side.images) / side.time.wall) / (Double(base.images) / base.time.wall),
     (side.time.cpu / Double(side.images)) / (base.time.cpu / Double(base.images)))
}
for round in 0..<rounds {
    let viaManager = side == "direct" ? try await directRound() : try await managerRound(round)
    let direct = side == "manager" ? try await managerRound(round + rounds) : try await directRound()
    let floor = side == nil ? try await floorRound(round) : nil
    print(line("manager", viaManager))
    print(line("direct ", direct))
    let (rate, cpu) = ratio(viaManager, to: direct)
    ratios.append((rate, cpu))
    print(String(format: "round %d: manager ÷ direct %.3f× images/s, %.3f× CPU an image", round + 1, rate, cpu))
    if let floor {
        print(line("floor  ", floor))
        floorRatios.append(ratio(viaManager, to: floor))
        print(String(format: "         manager ÷ floor %.3f× images/s, %.3f× CPU an image; floor ÷ direct %.3f× images/s",
                     floorRatios[round].rate, floorRatios[round].cpu, ratio(floor, to: direct).rate))
    }
}
let rates = ratios.map(\.rate).sorted()
let cpus = ratios.map(\.cpu).sorted()
let floorRates = floorRatios.map(\.rate).sorted()
let floorCPUs = floorRatios.map(\.cpu).sorted()
print(String(format: "median: %.3f× images/s, %.3f× CPU an image; origin loads %d (0: every original came from the cache)", rates[rates.count / 2], cpus[cpus.count / 2], loader.loads))
if !floorRates.isEmpty {
    print(String(format: "median against the floor: %.3f× images/s, %.3f× CPU an image", floorRates[floorRates.count / 2], floorCPUs[floorCPUs.count / 2]))
}
if side == nil {
    let rate = rates[rates.count / 2]
    BenchmarkFigure.write([BenchmarkFigure(
        id: "variant-manager",
        figure: "cold encoded variants of \(files.count) photos through `ImageManager.loadVariant` (`WorkLimiter` of \(threads)), no HTTP",
        value: String(
            format: "%.3f× the images/s, %.3f× the CPU an image (median of %d rounds); against the same calls with the cache's file work in C, %.3f× the images/s, %.3f× the CPU an image",
            rate, cpus[cpus.count / 2], rounds, floorRates[floorRates.count / 2], floorCPUs[floorCPUs.count / 2]
        ),
        ratio: rate, baseline: "`vips_thumbnail_buffer` + `vips_jpegsave_buffer` on \(threads) threads", target: "≥ 0.97×",
        met: BenchmarkFigure.met(rate >= 0.97)
    )])
}
