import Foundation
import Testing
import WebImage
import WebImageTestSupport

struct CLIVersionTests {
    @Test func versionFlagPrintsTheLibraryVersion() throws {
        let binary = URL(fileURLWithPath: try BuiltExecutables.path(of: "webimage"))
        let process = ChildProcess()
        process.executableURL = binary
        process.arguments = ["--version"]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        process.waitUntilExit()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(process.terminationStatus == 0)
        #expect(output.trimmingCharacters(in: .whitespacesAndNewlines) == WebImageVersion.current)
    }
}
