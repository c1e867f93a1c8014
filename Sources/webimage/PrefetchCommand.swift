import ArgumentParser
import Foundation
import Synchronization
import WebImage

/// `webimage prefetch [FILE|-]`: loads a list of URLs into the cache.
struct PrefetchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "prefetch",
        abstract: "Load a list of image URLs into the cache.",
        discussion: """
            Reads one URL a line from FILE, or from standard input when FILE is '-' or \
            absent; blank lines and lines starting with '#' are skipped. Each URL is loaded \
            through the cache at low priority (ImagePrefetcher), --concurrency at a time. \
            A failed URL gets one line on standard error naming it and the reason; the \
            summary line says how many were finished and skipped (failed). With --json, \
            each URL is one JSON object on its own line (type "image": url, ok, cacheType, \
            error) and the last line is the summary (type "summary": finished, skipped, \
            total). The exit status is 1 when any URL failed.
            """
    )

    @Argument(help: ArgumentHelp("A file with one URL a line, or '-' for standard input.", valueName: "file"))
    var file = "-"

    @Option(help: ArgumentHelp("How many images to load at once.", valueName: "n"))
    var concurrency = 3

    @Flag(help: "Print JSON Lines instead of text.")
    var json = false

    @OptionGroup var cache: CacheLocationOptions
    @OptionGroup var network: NetworkOptions

    func validate() throws {
        try Arguments.check(concurrency, in: 1...64, option: "concurrency")
        if file != "-", !FileManager.default.isReadableFile(atPath: file) {
            throw ValidationError("cannot read the URL list '\(file)': pass an existing file with one URL a line, or '-' for standard input")
        }
    }

    func run() async throws {
        let text: String
        if file == "-" {
            text = String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self)
        } else {
            text = try String(contentsOfFile: file, encoding: .utf8)
        }
        var urls: [URL] = []
        var invalid = 0
        for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
            do {
                urls.append(try Arguments.url(trimmed))
            } catch {
                invalid += 1
                Console.err("webimage: \(file == "-" ? "standard input" : file), line \(number + 1): \(error.message)")
            }
        }
        let progress = ProgressRenderer.standardError()
        progress.update { $0.total = urls.count }
        let printJSON = json
        let result = try await Pipeline.with(cache.cacheConfig(), downloader: try network.downloaderConfig()) { pipeline in
            let prefetcher = ImagePrefetcher(manager: pipeline.manager, maxConcurrentPrefetchCount: concurrency)
            let requests = urls.map { ImageRequest(url: $0, priority: .low, options: .waitStoreCache) }
            var last = PrefetchResult(finishedCount: 0, skippedCount: 0, totalCount: urls.count)
            for await report in prefetcher.progress(of: requests) {
                last = PrefetchResult(finishedCount: report.finishedCount, skippedCount: report.skippedCount, totalCount: report.totalCount)
                progress.update { snapshot in
                    snapshot.finished = report.finishedCount
                    snapshot.failed = report.skippedCount
                }
                progress.aside {
                    if printJSON { Console.out(JSONLines.line(PrefetchRecord(report))) }
                    if case .failure(let error) = report.outcome {
                        Console.err("webimage: \(report.url.absoluteString): \(error)")
                    }
                }
            }
            return last
        }
        progress.finish()
        let summary = PrefetchSummary(
            finished: result.finishedCount + invalid, skipped: result.skippedCount + invalid, total: result.totalCount + invalid
        )
        if json {
            Console.out(JSONLines.line(summary))
        } else {
            Console.out("prefetched \(summary.total) URLs: \(summary.finished - summary.skipped) cached, \(summary.skipped) skipped (failed)")
        }
        if summary.skipped > 0 { throw ExitCode.failure }
    }
}

/// One URL of `prefetch --json`.
struct PrefetchRecord: Encodable {
    var type = "image"
    var url: String
    var ok: Bool
    var cacheType: String?
    var error: String?

    init(_ report: PrefetchProgress) {
        url = report.url.absoluteString
        switch report.outcome {
        case .success(let cacheType):
            ok = true
            self.cacheType = cacheType.description
        case .failure(let error):
            ok = false
            self.error = error.description
        }
    }
}

/// The last line of `prefetch --json`.
struct PrefetchSummary: Encodable {
    var type = "summary"
    var finished: Int
    var skipped: Int
    var total: Int
}
