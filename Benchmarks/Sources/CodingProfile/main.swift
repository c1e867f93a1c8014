// Runs one coding benchmark case in a loop, without the benchmark harness or its malloc
// interposer, for profilers. For example, instruction counts of the measured loop only:
//
//   swift build -c release --product CodingProfile
//   valgrind --tool=callgrind --toggle-collect='*measuredLoop*' \
//       .build/release/CodingProfile thumbnail-webimage 5
//
// Cases: thumbnail-webimage, thumbnail-direct, png-webimage, png-direct, png-direct-sequential.
//
// `CodingProfile compare thumbnail|png [rounds]` instead alternates WebImage and the
// direct libvips call, round after round, and prints the median ratio of their wall
// and process CPU times: on a busy machine, interleaving keeps the load the same for both.
import BenchmarkSupport
import Foundation

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

/// Alternates `ours` and `theirs` for `rounds` rounds; prints median times and ratios.
func compare(_ ours: CodingCase, _ theirs: CodingCase, rounds: Int) throws {
    try ours.prepare()
    try theirs.prepare()
    var wall: [CodingCase: [Double]] = [:]
    var cpu: [CodingCase: [Double]] = [:]
    var wallRatios: [Double] = []
    var cpuRatios: [Double] = []
    for round in 0..<rounds {
        // Swap the order every round so neither side always runs second.
        let order = round.isMultiple(of: 2) ? [ours, theirs] : [theirs, ours]
        var wallNow: [CodingCase: Double] = [:]
        var cpuNow: [CodingCase: Double] = [:]
        for codingCase in order {
            let cpuStart = processCPUTime()
            let start = ContinuousClock.now
            _ = try codingCase.run()
            let elapsed = ContinuousClock.now - start
            wallNow[codingCase] = Double(elapsed.components.seconds) * 1e3 + Double(elapsed.components.attoseconds) / 1e15
            cpuNow[codingCase] = Double(processCPUTime() - cpuStart) / 1e6
        }
        for codingCase in [ours, theirs] {
            wall[codingCase, default: []].append(wallNow[codingCase]!)
            cpu[codingCase, default: []].append(cpuNow[codingCase]!)
        }
        wallRatios.append(wallNow[ours]! / wallNow[theirs]!)
        cpuRatios.append(cpuNow[ours]! / cpuNow[theirs]!)
    }
    for codingCase in [ours, theirs] {
        let line = String(
            format: "%@ median wall %7.2f ms, median CPU %7.2f ms, %6.1f ops/s",
            codingCase.rawValue.padding(toLength: 22, withPad: " ", startingAt: 0), median(wall[codingCase]!), median(cpu[codingCase]!), 1000 / median(wall[codingCase]!)
        )
        print(line)
    }
    print(String(format: "ratio %@ / %@ over %d rounds: wall %.3f×, CPU %.3f× (medians of per-round ratios)",
                 ours.rawValue, theirs.rawValue, rounds, median(wallRatios), median(cpuRatios)))
}

@inline(never)
func measuredLoop(_ codingCase: CodingCase, iterations: Int) throws -> Int {
    var pixels = 0
    for _ in 0..<iterations {
        pixels &+= try codingCase.run().area
    }
    return pixels
}

let arguments = CommandLine.arguments.dropFirst()
if arguments.first == "compare" {
    let pairs: [String: (CodingCase, CodingCase)] = [
        "thumbnail": (.thumbnailWebImage, .thumbnailDirect),
        "png": (.pngWebImage, .pngDirect),
        "png-sequential": (.pngDirect, .pngDirectSequential),
    ]
    guard let name = arguments.dropFirst().first, let pair = pairs[name] else {
        FileHandle.standardError.write(Data("usage: CodingProfile compare <thumbnail|png|png-sequential> [rounds]\n".utf8))
        exit(2)
    }
    let rounds = arguments.dropFirst(2).first.flatMap { Int($0) } ?? 40
    do {
        try compare(pair.0, pair.1, rounds: rounds)
    } catch {
        FileHandle.standardError.write(Data("compare \(name) failed: \(error)\n".utf8))
        exit(1)
    }
    exit(0)
}
guard let name = arguments.first, let codingCase = CodingCase(rawValue: name) else {
    let names = CodingCase.allCases.map(\.rawValue).joined(separator: " | ")
    FileHandle.standardError.write(Data("usage: CodingProfile <\(names)> [iterations]\n".utf8))
    exit(2)
}
let iterations = arguments.dropFirst().first.flatMap { Int($0) } ?? 20

do {
    try codingCase.prepare()
    let start = ContinuousClock.now
    let pixels = try measuredLoop(codingCase, iterations: iterations)
    let elapsed = ContinuousClock.now - start
    let each = elapsed / max(1, iterations)
    print("\(codingCase.rawValue): \(iterations) runs, \(each) each, \(pixels / max(1, iterations)) px out")
} catch {
    FileHandle.standardError.write(Data("\(codingCase.rawValue) failed: \(error)\n".utf8))
    exit(1)
}
