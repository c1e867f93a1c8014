// Runs one coding benchmark case in a loop, without the benchmark harness or its malloc
// interposer, for profilers. For example, instruction counts of the measured loop only:
//
//   swift build -c release --product CodingProfile
//   valgrind --tool=callgrind --toggle-collect='*measuredLoop*' \
//       .build/release/CodingProfile thumbnail-webimage 5
//
// Cases: thumbnail-webimage, thumbnail-direct, png-webimage, png-direct, png-direct-sequential.
import BenchmarkSupport
import Foundation

@inline(never)
func measuredLoop(_ codingCase: CodingCase, iterations: Int) throws -> Int {
    var pixels = 0
    for _ in 0..<iterations {
        pixels &+= try codingCase.run().area
    }
    return pixels
}

let arguments = CommandLine.arguments.dropFirst()
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
