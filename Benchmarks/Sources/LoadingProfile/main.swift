// The download pair of LoadingBenchmarks (BenchmarkSupport/DownloadPair) without the
// benchmark harness or its malloc interposer, for profilers and for quick A/B runs:
//
//   swift build -c release --product LoadingProfile
//   .build/release/LoadingProfile compare 20 [-v]     # interleaved A/B rounds, medians (-v: every round)
//   .build/release/LoadingProfile webimage 10         # only one side (CPU, page faults), for perf
//   .build/release/LoadingProfile chunks              # how AsyncHTTPClient splits a 100 KB body
//   perf record -g .build/release/LoadingProfile webimage 20
//
// Each round is 1,000 distinct 100 KB downloads, 6 at a time; both sides are warmed first.
import AsyncHTTPClient
import BenchmarkSupport
import WebImage
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

let arguments = Array(CommandLine.arguments.dropFirst())
let mode = arguments.first ?? "compare"
let rounds = arguments.dropFirst().first.flatMap { Int($0) } ?? 10
let verbose = arguments.contains("-v")
let pair = try DownloadPair()
let expected = pair.transfers * pair.server.bodySize
try await pair.warmUp()

switch mode {
case "compare":
    var ours: [TimeSample] = [], theirs: [TimeSample] = []
    var wallRatios: [Double] = [], cpuRatios: [Double] = []
    for round in 0..<rounds {
        let a: TimeSample, b: TimeSample
        if round.isMultiple(of: 2) {
            a = try await timed(pair.webImageRound, expected: expected)
            b = try await timed(pair.directRound, expected: expected)
        } else {
            b = try await timed(pair.directRound, expected: expected)
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
    FileHandle.standardError.write(Data("usage: LoadingProfile [compare|webimage|direct] [rounds]\n".utf8))
    exit(2)
}
