// The loading pairs outside the benchmark harness and its malloc interposer, in
// interleaved A/B rounds (and one side alone, for profilers): ImageDownloader against
// AsyncHTTPClient used directly (BenchmarkSupport/DownloadPair), a host pinned by
// hopAddress against its IP literal, and memory hits through ImageManager against a bare
// lookup:
//
//   swift build -c release --product LoadingProfile
//   .build/release/LoadingProfile compare 20 [-v]     # interleaved A/B rounds, medians (-v: every round)
//   .build/release/LoadingProfile webimage 10         # only one side (webimage | direct), for perf
//   .build/release/LoadingProfile pinned 20           # `localhost` pinned by hopAddress vs `127.0.0.1`
//                                                      # (BenchmarkSupport/PinnedDownloadPair), interleaved
//   perf record -g .build/release/LoadingProfile webimage 20
//   .build/release/LoadingProfile hits callback 1000   # memory hits through the manager (callback |
//                                                      # async | lookup | shape), rounds of 1,000 calls, for perf
//   .build/release/LoadingProfile hits compare 200     # all four interleaved, 10,000 calls a round: medians
//
// `compare`, `pinned` and `hits compare` write their figure to Benchmarks/results/<id>.json
// (BenchmarkFigure).
//
// After changing WebImage's API, touch this package's sources (or remove .build): an
// incremental release build may keep objects compiled against the old API, which crash.
//
// Each round is 1,000 distinct 100 KB downloads, 6 at a time; both sides are warmed first.
import BenchmarkSupport
@_spi(Benchmarking) import WebImage
import Foundation

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return .nan }
    return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
}

func timed(_ body: () async throws -> Int, expected: Int) async throws -> TimeSample {
    var bytes = 0
    let sample = try await Clocks.measureProcess { bytes = try await body() }
    precondition(bytes == expected, "short: \(bytes) of \(expected) bytes")
    return sample
}

/// `value`, through a call the optimizer does not look into.
@inline(never)
func opaque<T>(_ value: T) -> T { value }

/// The handle the callback form returns, as ``ImageTask`` lays it out.
struct HandleShape {
    let url: URL?
    let options: ImageOptions
    let work: AnyObject?
    let subscriberID: Int
}

/// The callback form's shape with none of the manager's rules: the memory lookup, a
/// result built and handed to `completion`, a handle returned. What SDWebImage's call
/// shape costs on its own, the floor of a memory hit through `loadImage(with:completion:)`.
@inline(never)
func shapeOnlyLoad(
    _ memory: MemoryCache<String, Image>, _ url: URL?,
    completion: @Sendable (Result<ImageResult, ImageError>) -> Void
) -> HandleShape? {
    guard let url, let image = memory.value(forKey: url.absoluteString) else { return nil }
    let handle = HandleShape(url: url, options: [], work: nil, subscriberID: 0)
    completion(.success(ImageResult(image: consume image, data: nil, cacheType: .memory, url: consume url)))
    return handle
}

/// Memory hits: a manager whose memory holds one 64 × 64
/// image, asked `rounds` × 1,000 times in the `form` given; prints the time a call.
func memoryHits(form: String, rounds: Int) async throws {
    var config = CacheConfig()
    let directory = PosixFiles.temporaryDirectory("webimage-profile-hits")
    defer { try? FileManager.default.removeItem(atPath: directory) }
    config.rootDirectory = directory
    config.autoCleanInterval = nil
    let cache = ImageCache(config: config)
    let manager = ImageManager(cache: cache, loader: ImageDownloader(config: DownloaderConfig()))
    let url = URL(string: "https://example.com/images/hit.png")!
    let key = manager.cacheKey(for: url)!
    cache.storeToMemory(try Image(pixels: [UInt8](repeating: 128, count: 64 * 64 * 3), width: 64, height: 64, channels: 3), forKey: key)
    // The three forms, each timed over `calls` calls.
    let memory = cache.memoryCache!
    let lookups = { (calls: Int) -> TimeSample in
        Clocks.measureThread { for _ in 0..<calls { precondition(memory.value(forKey: key) != nil) } }
    }
    let callbacks = { (calls: Int) -> TimeSample in
        Clocks.measureThread {
            for _ in 0..<calls {
                manager.loadImage(with: url) { result in
                    guard case .success(let value) = result, value.cacheType == .memory else { preconditionFailure("not a memory hit") }
                }
            }
        }
    }
    // Passed through a call the optimizer cannot see into, as the manager's completion is:
    // otherwise it would be inlined into `shapeOnlyLoad`, which no caller of a library gets.
    let checkHit: @Sendable (Result<ImageResult, ImageError>) -> Void = { result in
        guard case .success(let value) = result, value.cacheType == .memory else { preconditionFailure("not a memory hit") }
    }
    let shapeCompletion = opaque(checkHit)
    let shapeOnly = { (calls: Int) -> TimeSample in
        Clocks.measureThread {
            for _ in 0..<calls { _ = shapeOnlyLoad(memory, url, completion: shapeCompletion) }
        }
    }
    let asyncCalls = { (calls: Int) async throws -> TimeSample in
        try await Clocks.measureProcess {
            for _ in 0..<calls {
                let result = try await manager.loadImage(from: url)
                precondition(result.cacheType == .memory)
            }
        }
    }
    if form == "compare" {
        // Interleaved rounds of 10,000 calls of each form (the order rotates), so that
        // noise from the rest of the machine falls on all three alike; medians of the ratios.
        let callsPerRound = 10_000
        var asyncRatios: [Double] = [], callbackRatios: [Double] = []
        var shapeRatios: [Double] = []
        var lookupTimes: [Double] = [], asyncTimes: [Double] = [], callbackTimes: [Double] = [], shapeTimes: [Double] = []
        for round in 0..<rounds {
            var lookup = 0.0, async = 0.0, callback = 0.0, shape = 0.0
            for step in 0..<4 {
                switch (round + step) % 4 {
                case 0: lookup = lookups(callsPerRound).cpu
                case 1: async = try await asyncCalls(callsPerRound).cpu
                case 2: shape = shapeOnly(callsPerRound).cpu
                default: callback = callbacks(callsPerRound).cpu
                }
            }
            let perCall = 1e9 / Double(callsPerRound)
            lookupTimes.append(lookup * perCall)
            asyncTimes.append(async * perCall)
            callbackTimes.append(callback * perCall)
            shapeTimes.append(shape * perCall)
            asyncRatios.append(async / lookup)
            callbackRatios.append(callback / lookup)
            shapeRatios.append(shape / lookup)
        }
        print(String(
            format: "%d rounds, median ns CPU a call: lookup %.1f, async %.1f, callback %.1f, call shape alone %.1f; median ratio async %.2f×, callback %.2f×, call shape alone %.2f×",
            rounds, median(lookupTimes), median(asyncTimes), median(callbackTimes), median(shapeTimes),
            median(asyncRatios), median(callbackRatios), median(shapeRatios)
        ))
        let asyncRatio = median(asyncRatios), callbackRatio = median(callbackRatios)
        BenchmarkFigure.write([BenchmarkFigure(
            id: "loading-manager-memory-hit", figure: "`ImageManager` memory hit, `loadImage(from:)` / callback form",
            value: String(
                format: "%.2f× / %.2f× the CPU a call (medians of %d interleaved rounds); the callback form's call shape alone (lookup, result, completion, handle), %.2f×",
                asyncRatio, callbackRatio, rounds, median(shapeRatios)
            ),
            ratio: asyncRatio, baseline: "a bare `MemoryCache` lookup", target: "≤ 2.5×",
            met: "async \(BenchmarkFigure.met(asyncRatio <= 2.5)); callback \(BenchmarkFigure.met(callbackRatio <= 2.5))"
        )])
        return
    }
    let calls = rounds * 1_000
    let sample: TimeSample
    switch form {
    case "callback": sample = callbacks(calls)
    case "async": sample = try await asyncCalls(calls)
    case "lookup": sample = lookups(calls)
    case "shape": sample = shapeOnly(calls)
    default:
        FileHandle.standardError.write(Data("usage: LoadingProfile hits <callback|async|lookup|shape|compare> [rounds]\n".utf8))
        exit(2)
    }
    print(String(format: "%@: %d calls, %.1f ns CPU a call, %.1f ns wall", form, calls, sample.cpu / Double(calls) * 1e9, sample.wall / Double(calls) * 1e9))
}

let arguments = Array(CommandLine.arguments.dropFirst())
let mode = arguments.first ?? "compare"
if mode == "hits" {
    try await memoryHits(form: arguments.dropFirst().first ?? "callback", rounds: arguments.dropFirst(2).first.flatMap { Int($0) } ?? 1_000)
    exit(0)
}
let rounds = arguments.dropFirst().first.flatMap { Int($0) } ?? 10
let verbose = arguments.contains("-v")
if mode == "pinned" {
    // Interleaved rounds of the two sides of the pinned pair; medians.
    let pinnedPair = PinnedDownloadPair(server: try HTTPBenchServer())
    let expected = pinnedPair.transfers * pinnedPair.server.bodySize
    try await pinnedPair.warmUp()
    var pinned: [TimeSample] = [], literal: [TimeSample] = []
    var throughputRatios: [Double] = [], cpuRatios: [Double] = []
    for round in 0..<rounds {
        let a: TimeSample, b: TimeSample
        if round.isMultiple(of: 2) {
            a = try await timed(pinnedPair.pinnedRound, expected: expected)
            b = try await timed(pinnedPair.literalRound, expected: expected)
        } else {
            b = try await timed(pinnedPair.literalRound, expected: expected)
            a = try await timed(pinnedPair.pinnedRound, expected: expected)
        }
        pinned.append(a)
        literal.append(b)
        if verbose {
            print(String(format: "round %2d: pinned %6.1f ms wall %6.1f ms CPU, literal %6.1f ms wall %6.1f ms CPU",
                         round, a.wall * 1000, a.cpu * 1000, b.wall * 1000, b.cpu * 1000))
        }
        throughputRatios.append(b.wall / a.wall)
        cpuRatios.append(a.cpu / b.cpu)
    }
    let mb = pinnedPair.megabytesPerRound
    for (name, samples) in [("localhost, pinned", pinned), ("127.0.0.1 literal", literal)] {
        print(String(
            format: "%@: median %7.1f MB/s wall, %7.1f ms CPU a round",
            name, mb / median(samples.map(\.wall)), median(samples.map(\.cpu)) * 1000
        ))
    }
    print(String(
        format: "pinned / literal over %d rounds: throughput %.3f×, CPU %.3f×",
        rounds, median(throughputRatios), median(cpuRatios)
    ))
    BenchmarkFigure.write([BenchmarkFigure(
        id: "loading-downloads-pinned", figure: "1,000 × 100 KB downloads at concurrency 6, `localhost` pinned by `hopAddress`",
        value: String(format: "%.3f× the throughput, %.3f× the CPU (medians of %d interleaved rounds)", median(throughputRatios), median(cpuRatios), rounds),
        ratio: median(throughputRatios), baseline: "the same loads by IP literal", target: "≥ 0.98×",
        met: BenchmarkFigure.met(median(throughputRatios) >= 0.98)
    )])
    exit(0)
}
let pair = try DownloadPair()
let expected = pair.transfers * pair.server.bodySize
try await pair.warmUp()

switch mode {
case "compare":
    let direct: @Sendable () async throws -> Int = pair.directRound
    var ours: [TimeSample] = [], theirs: [TimeSample] = []
    var wallRatios: [Double] = [], cpuRatios: [Double] = []
    for round in 0..<rounds {
        let a: TimeSample, b: TimeSample
        if round.isMultiple(of: 2) {
            a = try await timed(pair.webImageRound, expected: expected)
            b = try await timed(direct, expected: expected)
        } else {
            b = try await timed(direct, expected: expected)
            a = try await timed(pair.webImageRound, expected: expected)
        }
        ours.append(a)
        theirs.append(b)
        if verbose {
            print(String(format: "round %2d: ImageDownloader %6.1f ms wall %6.1f ms CPU, AsyncHTTPClient %6.1f ms wall %6.1f ms CPU",
                         round, a.wall * 1000, a.cpu * 1000, b.wall * 1000, b.cpu * 1000))
        }
        wallRatios.append(a.wall / b.wall)
        cpuRatios.append(a.cpu / b.cpu)
    }
    let mb = pair.megabytesPerRound
    for (name, samples) in [("ImageDownloader", ours), ("AsyncHTTPClient", theirs)] {
        print(String(
            format: "%@ median %7.1f MB/s wall, %7.1f ms CPU a round",
            name, mb / median(samples.map(\.wall)), median(samples.map(\.cpu)) * 1000
        ))
    }
    print(String(
        format: "ImageDownloader / AsyncHTTPClient over %d rounds: wall %.3f× (%.0f %% of the MB/s), CPU %.3f×",
        rounds, median(wallRatios), 100 / median(wallRatios), median(cpuRatios)
    ))
    let share = 1 / median(wallRatios)
    BenchmarkFigure.write([BenchmarkFigure(
        id: "loading-downloads", figure: "1,000 × 100 KB downloads at concurrency 6",
        value: String(format: "%.0f %% of the MB/s, %.2f× the CPU (medians of %d interleaved rounds)", share * 100, median(cpuRatios), rounds),
        ratio: share, baseline: "AsyncHTTPClient used directly", target: "≥ 90 %", met: BenchmarkFigure.met(share >= 0.9)
    )])
case "webimage", "direct":
    var samples: [TimeSample] = []
    for _ in 0..<rounds {
        samples.append(try await timed(mode == "webimage" ? pair.webImageRound : pair.directRound, expected: expected))
    }
    print(String(
        format: "%@: %d rounds, median %.1f ms wall, %.1f ms CPU", mode, rounds,
        median(samples.map(\.wall)) * 1000, median(samples.map(\.cpu)) * 1000
    ))
default:
    FileHandle.standardError.write(Data("usage: LoadingProfile [compare|webimage|direct|hits|pinned] [rounds]\n".utf8))
    exit(2)
}
