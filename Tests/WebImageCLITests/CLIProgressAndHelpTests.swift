import Foundation
import Testing
@testable import webimage
import WebImageLocking
import WebImageTestSupport

/// Collects what a renderer writes.
final class Screen: Sendable {
    private let text = InlineLocked("")
    func write(_ chunk: String) { text.withLock { $0 += chunk } }
    var contents: String { text.withLock { $0 } }
}

@Suite("webimage progress bar and help")
struct CLIProgressAndHelpTests {
    @Test("the bar's text shows the fraction, the counts, failures and bytes")
    func barText() {
        let line = ProgressRenderer.line(for: .init(finished: 5, failed: 1, total: 10, bytes: 1_200_000), barWidth: 10)
        #expect(line == "[#####-----]  5/10  1 failed  1.2 MB")
        #expect(ProgressRenderer.line(for: .init(finished: 0, failed: 0, total: 3), barWidth: 4) == "[----] 0/3")
        #expect(ProgressRenderer.line(for: .init(finished: 3, failed: 0, total: 3), barWidth: 4) == "[####] 3/3")
    }

    @Test("an enabled renderer redraws in place on each finished item and clears itself around lines")
    func enabledRenderer() {
        let screen = Screen()
        let renderer = ProgressRenderer(isEnabled: true, barWidth: 4, minimumInterval: .seconds(3600)) { screen.write($0) }
        renderer.update { $0.total = 2 }
        renderer.update { $0.finished = 1 }
        // Byte updates within the interval are not drawn; a finished item always is.
        renderer.update { $0.bytes = 10 }
        renderer.aside { screen.write("line\n") }
        renderer.update { $0.finished = 2 }
        renderer.finish()
        let erase = "\r\u{1B}[2K"
        #expect(screen.contents == [
            erase + "[----] 0/2",
            erase + "[##--] 1/2",
            erase, "line\n", erase + "[##--] 1/2  10 B",
            erase + "[####] 2/2  10 B",
            erase,
        ].joined())
    }

    @Test("a disabled renderer (output not a terminal) writes nothing")
    func disabledRenderer() {
        let screen = Screen()
        let renderer = ProgressRenderer(isEnabled: false) { screen.write($0) }
        renderer.update { $0.total = 5 }
        renderer.update { $0.finished = 5 }
        var printed = false
        renderer.aside { printed = true }
        renderer.finish()
        #expect(printed)
        #expect(screen.contents.isEmpty)
    }

    @Test("a subprocess whose output is a pipe or a file shows no progress bar")
    func noBarWhenPiped() async throws {
        try await withCLI { origin, sandbox in
            origin.register("/a.png", .image(try TestImages.encode(try TestImages.quadrants(width: 8, height: 8), as: .png)))
            let fetch = try await sandbox.run(["fetch", origin.url("/a.png").absoluteString, "-o", "out"])
            let prefetch = try await sandbox.run(["prefetch"], stdin: Data(origin.url("/a.png").absoluteString.utf8))
            for result in [fetch, prefetch] {
                #expect(result.status == 0)
                #expect(!result.stderr.contains("\r") && !result.stderr.contains("\u{1B}") && !result.stdout.contains("\u{1B}"))
                #expect(!result.stderr.contains("[#") && !result.stderr.contains("[-"))
            }
        }
    }

    @Test("every command and flag has help text")
    func help() async throws {
        let sandbox = try CLISandbox()
        defer { sandbox.remove() }
        let commands: [([String], [String])] = [
            ([], ["fetch", "prefetch", "info", "cache", "refresh", "--version"]),
            (["fetch"], ["--output", "--thumbnail", "--resize", "--format", "--quality", "--no-cache", "--refresh", "--retry-failed", "--json", "--cache-dir"]),
            (["prefetch"], ["--concurrency", "--json", "--cache-dir"]),
            (["info"], ["--json", "--cache-dir"]),
            (["cache"], ["info", "clean", "clear", "path"]),
            (["cache", "info"], ["--json", "--max-age", "--max-size", "--cache-dir"]),
            (["cache", "clean"], ["--json", "--max-age", "--max-size", "--cache-dir"]),
            (["cache", "clear"], ["--json", "--cache-dir"]),
            (["cache", "path"], ["--cache-dir"]),
            (["refresh"], ["--older-than", "--concurrency", "--json", "--cache-dir"]),
        ]
        for (command, names) in commands {
            let result = try await sandbox.run(command + ["--help"])
            #expect(result.status == 0, "\(command)")
            #expect(result.stdout.contains("OVERVIEW:") || result.stdout.contains("USAGE:"), "\(command)")
            for name in names {
                // Each flag's or subcommand's line carries a description after the name.
                let line = result.stdoutLines.first { $0.trimmingCharacters(in: .whitespaces).hasPrefix(name) || $0.contains(", " + name + " ") }
                let described = line.map { $0.trimmingCharacters(in: .whitespaces).split(separator: " ", omittingEmptySubsequences: true).count > 1 } ?? false
                #expect(described, "\(command) \(name): \(result.stdout)")
            }
        }
    }
}
