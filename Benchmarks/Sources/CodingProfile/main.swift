// Runs one coding benchmark case in a loop, without the benchmark harness or its malloc
// interposer, for profilers. For example, instructions a decode: libvips computes on its
// worker threads, so collect everything and subtract a 1-iteration run from a 3-iteration
// one (README.md, Profiling, has the whole recipe):
//
//   swift build -c release --product CodingProfile
//   objcopy --strip-debug .build/release/CodingProfile /tmp/CodingProfile   # for valgrind 3.19
//   valgrind --tool=callgrind /tmp/CodingProfile thumbnail-webimage 3
//
// Cases: thumbnail-webimage, thumbnail-direct, png-webimage, png-direct, png-direct-sequential,
// and the transform cases (TransformCase): resize-fill-webimage, resize-fill-direct,
// resize-fill-transformer-only-webimage, blur-webimage, blur-direct.
//
// `CodingProfile compare thumbnail|png|resize-fill|resize-fill-transformer-only|blur
// [rounds]` instead alternates WebImage and the
// direct libvips call, round after round, and prints the median ratio of their wall and
// process CPU times: on a busy machine, interleaving keeps the load the same for both. It
// writes the pair's figure to Benchmarks/results/<id>.json (BenchmarkFigure).
import BenchmarkSupport
import Foundation
import WebImage

#if canImport(Glibc)
import Glibc
#endif

/// CPU time of the whole process (libvips works on its own threads), in nanoseconds.
func processCPUTime() -> Int {
    var spec = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &spec)
    return spec.tv_sec * 1_000_000_000 + spec.tv_nsec
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return .nan }
    return sorted.count % 2 == 1
        ? sorted[sorted.count / 2]
        : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
}

/// A case either benchmark family runs: a name, its set-up, and one run.
struct ProfileCase {
    let name: String
    let prepare: () throws -> Void
    let run: () throws -> PixelSize

    init(_ codingCase: CodingCase) {
        name = codingCase.rawValue
        prepare = codingCase.prepare
        run = codingCase.run
    }

    init(_ transformCase: TransformCase) {
        name = transformCase.rawValue
        prepare = transformCase.prepare
        run = transformCase.run
    }

    init?(named name: String) {
        if let codingCase = CodingCase(rawValue: name) {
            self.init(codingCase)
        } else if let transformCase = TransformCase(rawValue: name) {
            self.init(transformCase)
        } else {
            return nil
        }
    }
}

/// Alternates `ours` and `theirs` for `rounds` rounds; prints median times and ratios and
/// returns the medians of the per-round ratios, wall and CPU.
func compare(_ ours: ProfileCase, _ theirs: ProfileCase, rounds: Int) throws -> (wall: Double, cpu: Double) {
    try ours.prepare()
    try theirs.prepare()
    var wall: [[Double]] = [[], []]
    var cpu: [[Double]] = [[], []]
    var wallRatios: [Double] = []
    var cpuRatios: [Double] = []
    let sides = [ours, theirs]
    for round in 0..<rounds {
        // Swap the order every round so neither side always runs second.
        let order = round.isMultiple(of: 2) ? [0, 1] : [1, 0]
        var wallNow = [0.0, 0.0]
        var cpuNow = [0.0, 0.0]
        for index in order {
            let cpuStart = processCPUTime()
            let start = ContinuousClock.now
            _ = try sides[index].run()
            let elapsed = ContinuousClock.now - start
            wallNow[index] = Double(elapsed.components.seconds) * 1e3 + Double(elapsed.components.attoseconds) / 1e15
            cpuNow[index] = Double(processCPUTime() - cpuStart) / 1e6
        }
        for index in 0..<2 {
            wall[index].append(wallNow[index])
            cpu[index].append(cpuNow[index])
        }
        wallRatios.append(wallNow[0] / wallNow[1])
        cpuRatios.append(cpuNow[0] / cpuNow[1])
    }
    for index in 0..<2 {
        let line = String(
            format: "%@ median wall %7.2f ms, median CPU %7.2f ms, %6.1f ops/s",
            sides[index].name.padding(toLength: 34, withPad: " ", startingAt: 0), median(wall[index]), median(cpu[index]), 1000 / median(wall[index])
        )
        print(line)
    }
    print(String(format: "ratio %@ / %@ over %d rounds: wall %.3f×, CPU %.3f× (medians of per-round ratios)",
                 ours.name, theirs.name, rounds, median(wallRatios), median(cpuRatios)))
    return (median(wallRatios), median(cpuRatios))
}

/// What `compare NAME` states: the figure's id and text, and its baseline; the target is a
/// CPU ratio ≤ 1.05×.
struct ComparedFigure {
    let id: String
    let figure: String
    let baseline: String
}

@inline(never)
func measuredLoop(_ profileCase: ProfileCase, iterations: Int) throws -> Int {
    var pixels = 0
    for _ in 0..<iterations {
        pixels &+= try profileCase.run().area
    }
    return pixels
}

let arguments = CommandLine.arguments.dropFirst()
if arguments.first == "compare" {
    let pairs: [String: (ProfileCase, ProfileCase)] = [
        "thumbnail": (ProfileCase(.thumbnailWebImage), ProfileCase(.thumbnailDirect)),
        "png": (ProfileCase(.pngWebImage), ProfileCase(.pngDirect)),
        "resize-fill": (ProfileCase(.resizeFillWebImage), ProfileCase(.resizeFillDirect)),
        "resize-fill-transformer-only": (ProfileCase(.resizeFillTransformerOnlyWebImage), ProfileCase(.resizeFillDirect)),
        "blur": (ProfileCase(.blurWebImage), ProfileCase(.blurDirect)),
    ]
    // `resize-fill` and `blur` state no figure here: TransformBenchmarks states theirs.
    let figures: [String: ComparedFigure] = [
        "thumbnail": ComparedFigure(
            id: "coding-thumbnail-decode", figure: "thumbnail decode, 24 MP JPEG → 256 px", baseline: "`vips_thumbnail_buffer`"),
        "png": ComparedFigure(
            id: "coding-png-decode", figure: "full decode, 4 MP PNG", baseline: "`vips_image_new_from_buffer`"),
        "resize-fill-transformer-only": ComparedFigure(
            id: "transform-resize-fill-transformer-only",
            figure: "resize-fill 12 MP JPEG → 400 × 300 with only `processing.transformer` set", baseline: "`vips_thumbnail_buffer`"),
    ]
    guard let name = arguments.dropFirst().first, let pair = pairs[name] else {
        let names = pairs.keys.sorted().joined(separator: "|")
        FileHandle.standardError.write(Data("usage: CodingProfile compare <\(names)> [rounds]\n".utf8))
        exit(2)
    }
    let rounds = arguments.dropFirst(2).first.flatMap { Int($0) } ?? 40
    do {
        let ratios = try compare(pair.0, pair.1, rounds: rounds)
        if let stated = figures[name] {
            BenchmarkFigure.write([BenchmarkFigure(
                id: stated.id, figure: stated.figure,
                value: String(format: "%.3f× CPU, %.3f× wall (medians of %d interleaved rounds)", ratios.cpu, ratios.wall, rounds),
                ratio: ratios.cpu, baseline: stated.baseline, target: "≤ 1.05×", met: BenchmarkFigure.met(ratios.cpu <= 1.05)
            )])
        }
    } catch {
        FileHandle.standardError.write(Data("compare \(name) failed: \(error)\n".utf8))
        exit(1)
    }
    exit(0)
}
guard let name = arguments.first, let profileCase = ProfileCase(named: name) else {
    let names = (CodingCase.allCases.map(\.rawValue) + TransformCase.allCases.map(\.rawValue)).joined(separator: " | ")
    FileHandle.standardError.write(Data("usage: CodingProfile <\(names)> [iterations]\n".utf8))
    exit(2)
}
let iterations = arguments.dropFirst().first.flatMap { Int($0) } ?? 20

do {
    try profileCase.prepare()
    let start = ContinuousClock.now
    let pixels = try measuredLoop(profileCase, iterations: iterations)
    let elapsed = ContinuousClock.now - start
    let each = elapsed / max(1, iterations)
    print("\(profileCase.name): \(iterations) runs, \(each) each, \(pixels / max(1, iterations)) px out")
} catch {
    FileHandle.standardError.write(Data("\(profileCase.name) failed: \(error)\n".utf8))
    exit(1)
}
