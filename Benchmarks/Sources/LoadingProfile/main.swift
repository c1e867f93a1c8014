// The download pair of LoadingBenchmarks (BenchmarkSupport/DownloadPair) without the
// benchmark harness or its malloc interposer, for profilers and for quick A/B runs:
//
//   swift build -c release --product LoadingProfile
//   .build/release/LoadingProfile compare 20 [-v]     # interleaved A/B rounds, medians (-v: every round)
//   .build/release/LoadingProfile three 30            # the pair plus a second AsyncHTTPClient client:
//                                                      # how far two identical clients differ in one process
//   .build/release/LoadingProfile shared 30           # both sides on the downloader's own client (same connections)
//   .build/release/LoadingProfile webimage 10         # only one side (CPU, page faults), for perf
//   .build/release/LoadingProfile chunks              # how AsyncHTTPClient splits a 100 KB body
//   .build/release/LoadingProfile pinned 20           # `localhost` pinned by hopAddress vs `127.0.0.1`
//                                                      # (BenchmarkSupport/PinnedDownloadPair), interleaved
//   .build/release/LoadingProfile pinned-only 20      # one side of that pair (pinned-only | literal-only)
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
import AsyncHTTPClient
import BenchmarkSupport
@_spi(Benchmarking) import WebImage
import Foundation

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return .nan }
    return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
}

/// Minor page faults of the process so far (fresh pages touched: a sign of allocator churn).
func minorFaults() -> Int {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return usage.ru_minflt
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

/// Memory hits as LoadingBenchmarks makes them: a manager whose memory holds one 64 × 64
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
if mode == "pinned-only" || mode == "literal-only" {
    let pinnedPair = PinnedDownloadPair(server: try HTTPBenchServer())
    let expected = pinnedPair.transfers * pinnedPair.server.bodySize
    try await pinnedPair.warmUp()
    let side = mode == "pinned-only" ? pinnedPair.pinnedRound : pinnedPair.literalRound
    var samples: [TimeSample] = []
    for _ in 0..<rounds { samples.append(try await timed(side, expected: expected)) }
    print(String(
        format: "%@: %d rounds, median %.1f ms wall, %.1f ms CPU", mode, rounds,
        median(samples.map(\.wall)) * 1000, median(samples.map(\.cpu)) * 1000
    ))
    exit(0)
}
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
case "compare", "shared":
    // `shared`: the direct side uses the downloader's own client (the same pool, the same
    // connections), so that connection placement cannot differ between the sides.
    let direct: @Sendable () async throws -> Int
    if mode == "shared" {
        let client = pair.downloader.httpClient
        direct = { try await pair.directRound(using: client) }
        _ = try await direct()
    } else {
        direct = pair.directRound
    }
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
    if mode == "compare" {
        let share = 1 / median(wallRatios)
        BenchmarkFigure.write([BenchmarkFigure(
            id: "loading-downloads", figure: "1,000 × 100 KB downloads at concurrency 6",
            value: String(format: "%.0f %% of the MB/s, %.2f× the CPU (medians of %d interleaved rounds)", share * 100, median(cpuRatios), rounds),
            ratio: share, baseline: "AsyncHTTPClient used directly", target: "≥ 90 %", met: BenchmarkFigure.met(share >= 0.9)
        )])
    }
case "three":
    // A second client configured as the direct one, fetching the same bodies the same way:
    // what it measures against the first is placement noise (which event loops its
    // connections landed on), not code.
    let second = DownloadPair.makeDirectClient(like: pair.downloader.config)
    let secondRound = { try await pair.directRound(using: second) }
    _ = try await secondRound()
    var ours: [Double] = [], others: [Double] = []
    for round in 0..<rounds {
        var webImage = 0.0, direct = 0.0, other = 0.0
        // The order rotates, so that no side always follows the same one.
        for step in 0..<3 {
            switch (round + step) % 3 {
            case 0: webImage = try await timed(pair.webImageRound, expected: expected).cpu
            case 1: direct = try await timed(pair.directRound, expected: expected).cpu
            default: other = try await timed(secondRound, expected: expected).cpu
            }
        }
        ours.append(webImage / direct)
        others.append(other / direct)
    }
    print(String(
        format: "CPU over the direct client's, medians of %d rounds: ImageDownloader %.3f×, a second AsyncHTTPClient client %.3f×",
        rounds, median(ours), median(others)
    ))
case "webimage", "direct":
    var samples: [TimeSample] = []
    let faultsBefore = minorFaults()
    for _ in 0..<rounds {
        samples.append(try await timed(mode == "webimage" ? pair.webImageRound : pair.directRound, expected: expected))
    }
    print(String(
        format: "%@: %d rounds, median %.1f ms wall, %.1f ms CPU, %d minor page faults a round",
        mode, rounds, median(samples.map(\.wall)) * 1000, median(samples.map(\.cpu)) * 1000,
        (minorFaults() - faultsBefore) / max(1, rounds)
    ))
case "chunks":
    var counts: [Int: Int] = [:]
    var storage: [Int: Int] = [:]
    for i in 0..<200 {
        var request = HTTPClientRequest(url: "\(pair.server.baseURL)/x/\(i)")
        request.headers = DownloaderConfig.defaultHeaders
        let response = try await pair.directClient.execute(request, timeout: .seconds(30))
        var n = 0
        for try await chunk in response.body { n += 1; storage[chunk.storageCapacity, default: 0] += 1 }
        counts[n, default: 0] += 1
    }
    print("chunks per body:", counts.sorted { $0.key < $1.key }, "storage capacities:", storage.sorted { $0.key < $1.key })
    for i in 0..<200 {
        var request = HTTPClientRequest(url: "\(pair.server.baseURL)/y/\(i)")
        request.headers = DownloaderConfig.defaultHeaders
        let response = try await pair.directClient.execute(request, timeout: .seconds(30))
        let body = try await response.body.collect(upTo: 1 << 20)
        storage[-body.storageCapacity, default: 0] += 1
    }
    print("collected storage capacities:", storage.filter { $0.key < 0 }.sorted { $0.key < $1.key })
default:
    FileHandle.standardError.write(Data("usage: LoadingProfile [compare|three|shared|webimage|direct|chunks|hits|pinned|pinned-only|literal-only] [rounds]\n".utf8))
    exit(2)
}
