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
// Each variant is an `ImageRequest` whose transformer is `ResizeTransformer(300 × 300,
// .fit)` under a key no variant had before (as the proxy's `cb:` option gives), answered
// as JPEG quality 80. The sides alternate (manager, direct); each round prints images/s
// and process CPU per image. The cache is a directory of its own under TMPDIR, removed at
// the end. With both sides, the medians go to Benchmarks/results/variant-manager.json
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
        var request = ImageRequest(url: urls[photo])
        request.processing.transformer = UniqueResize(id: "\(run)-\(round)-\(worker)-\(index)")
        request.output = .encoded(VariantEncoding(format: .fixed(.jpeg), quality: 80), passthrough: .never)
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

func line(_ name: String, _ result: (images: Int, time: TimeSample)) -> String {
    String(format: "%@ %5d images  %6.1f images/s  %6.2f ms CPU an image", name, result.images, Double(result.images) / result.time.wall, result.time.cpu * 1000 / Double(result.images))
}

print("\(files.count) photos, \(threads) at once, \(Int(seconds)) s a side, \(rounds) rounds")
// SIDE=manager or SIDE=direct runs one side only (for perf); the ratios then compare it with itself.
let side = ProcessInfo.processInfo.environment["SIDE"]
// Warm-up, not measured: libvips start-up and the manager's threads.
if side != "direct" { _ = try await managerRound(-1) }
var ratios: [(rate: Double, cpu: Double)] = []
for round in 0..<rounds {
    let viaManager = side == "direct" ? try await directRound() : try await managerRound(round)
    let direct = side == "manager" ? try await managerRound(round + rounds) : try await directRound()
    print(line("manager", viaManager))
    print(line("direct ", direct))
    let rate = (Double(viaManager.images) / viaManager.time.wall) / (Double(direct.images) / direct.time.wall)
    let cpu = (viaManager.time.cpu / Double(viaManager.images)) / (direct.time.cpu / Double(direct.images))
    ratios.append((rate, cpu))
    print(String(format: "round %d: manager ÷ direct %.3f× images/s, %.3f× CPU an image", round + 1, rate, cpu))
}
let rates = ratios.map(\.rate).sorted()
let cpus = ratios.map(\.cpu).sorted()
print(String(format: "median: %.3f× images/s, %.3f× CPU an image; origin loads %d (0: every original came from the cache)", rates[rates.count / 2], cpus[cpus.count / 2], loader.loads))
if side == nil {
    let rate = rates[rates.count / 2]
    BenchmarkFigure.write([BenchmarkFigure(
        id: "variant-manager",
        figure: "cold encoded variants of \(files.count) photos through `ImageManager.loadVariant` (`WorkLimiter` of \(threads)), no HTTP",
        value: String(format: "%.3f× the images/s, %.3f× the CPU an image (median of %d rounds)", rate, cpus[cpus.count / 2], rounds),
        ratio: rate, baseline: "`vips_thumbnail_buffer` + `vips_jpegsave_buffer` on \(threads) threads", target: "≥ 0.97×",
        met: BenchmarkFigure.met(rate >= 0.97)
    )])
}
