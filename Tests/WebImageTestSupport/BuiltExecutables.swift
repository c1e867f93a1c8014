import Foundation
@testable import WebImage

/// Executables SwiftPM built beside the running test binary (test targets depend on them).
package enum BuiltExecutables {
    /// The path of the executable `name` from the same build directory as this test process.
    package static func path(of name: String) throws -> String {
        let executable = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        var directory = URL(fileURLWithPath: executable).deletingLastPathComponent()
        // The test binary may sit inside a bundle directory (…/X.xctest/…); walk up to the build directory.
        for _ in 0..<4 {
            let candidate = directory.appendingPathComponent(name).path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            directory = directory.deletingLastPathComponent()
        }
        throw ImageError.cacheFailure("\(name) not found near \(executable): build it first (swift build)")
    }
}
