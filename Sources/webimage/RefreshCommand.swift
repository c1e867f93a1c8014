import ArgumentParser
import Foundation
import WebImage

/// `webimage refresh`: revalidates cached entries with the servers they came from.
struct RefreshCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "refresh",
        abstract: "Revalidate cached images with their servers and report new data, no data and failures.",
        discussion: """
            Every disk entry that records the URL it was downloaded from is loaded again \
            with the manager's refreshCached option: its stored ETag / Last-Modified go out \
            as If-None-Match / If-Modified-Since. An entry still fresh by its source's \
            Cache-Control or Expires is left alone and counts as fresh, unless --force. A \
            304 (or the same bytes) counts as no data and renews the entry for the \
            lifetime it was stored with; new bytes replace the entry and count as new \
            data; an error counts as failed (one line on standard error) and leaves the \
            entry as it was. Entries without a source URL (transformed variants, entries \
            from older versions) are skipped. The exit status is 1 when any entry failed. \
            With --json, one JSON object a refreshed entry (type "entry": url, key, \
            result newData|noData|fresh|failed, error) and a last line (type "summary": \
            newData, noData, fresh, failed, skipped).
            """
    )

    @Option(
        name: .customLong("older-than"),
        help: ArgumentHelp("Only entries stored (or last revalidated) longer ago than this, e.g. 30m, 12h, 7d.", valueName: "duration"),
        transform: Arguments.duration
    )
    var olderThan: TimeInterval?

    @Option(help: ArgumentHelp("How many entries to revalidate at once.", valueName: "n"))
    var concurrency = 4

    @Flag(help: "Revalidate entries that are still fresh too.")
    var force = false

    @Flag(help: "Print JSON Lines instead of text.")
    var json = false

    @OptionGroup var cache: CacheLocationOptions
    @OptionGroup var network: NetworkOptions

    func validate() throws {
        try Arguments.check(concurrency, in: 1...64, option: "concurrency")
    }

    func run() async throws {
        let (olderThan, force) = (self.olderThan, self.force)
        let printJSON = json
        let summary = try await Pipeline.with(cache.cacheConfig(), downloader: try network.downloaderConfig()) { pipeline in
            let now = Date()
            let entries = await pipeline.disk.storedEntries()
            let due = entries.filter { entry in
                entry.metadata.sourceURL != nil && olderThan.map { now.timeIntervalSince(entry.metadata.storedDate) >= $0 } ?? true
            }
            var summary = RefreshSummary(skipped: entries.filter { $0.metadata.sourceURL == nil }.count)
            await withTaskGroup(of: RefreshRecord.self) { group in
                var next = 0
                func startNext() {
                    guard next < due.count else { return }
                    let entry = due[next]
                    next += 1
                    group.addTask { await Self.refresh(entry, force: force, pipeline: pipeline) }
                }
                for _ in 0..<concurrency { startNext() }
                while let record = await group.next() {
                    summary.count(record)
                    if printJSON {
                        Console.out(JSONLines.line(record))
                    } else if record.result == .newData {
                        Console.out("\(record.url)  new data")
                    }
                    if let error = record.error { Console.err("webimage: \(record.url): \(error)") }
                    startNext()
                }
            }
            return summary
        }
        if json {
            Console.out(JSONLines.line(summary))
        } else {
            Console.out(
                "refreshed \(summary.newData + summary.noData + summary.failed) entries: \(summary.newData) new data, "
                    + "\(summary.noData) no data, \(summary.failed) failed; \(summary.fresh) still fresh; \(summary.skipped) skipped (no source URL)"
            )
        }
        if summary.failed > 0 { throw ExitCode.failure }
    }

    /// Revalidates one entry under its own key, whatever key filter made it, unless it is
    /// known to be fresh and `force` is off.
    private static func refresh(_ entry: DiskCacheStoredEntry, force: Bool, pipeline: Pipeline) async -> RefreshRecord {
        guard let url = entry.metadata.sourceURL else { return RefreshRecord(entry: entry, result: .failed, error: "no source URL") }
        let manager = pipeline.manager
        if !force, manager.cache.freshness.isKnownFresh(entry.metadata, at: manager.now()) {
            return RefreshRecord(entry: entry, result: .fresh)
        }
        let key = entry.key
        var request = ImageRequest(url: url, options: [.refreshCached, .waitStoreCache, .retryFailed])
        request.caching.keyFilter = { _ in key }
        request.caching.query = .disk
        request.caching.freshness = .always
        // Without validators the server sends the whole image: comparing tells whether it changed.
        let before = entry.metadata.hasValidators ? nil : await pipeline.disk.data(forKey: key)
        do {
            let result = try await pipeline.manager.loadImage(request)
            // 304: the entry is current, and renewed.
            if result.cacheType != .none { return RefreshRecord(entry: entry, result: .noData) }
            if let before, before == result.data { return RefreshRecord(entry: entry, result: .noData) }
            return RefreshRecord(entry: entry, result: .newData)
        } catch {
            return RefreshRecord(entry: entry, result: .failed, error: error.description)
        }
    }
}

/// One refreshed entry.
struct RefreshRecord: Encodable, Sendable {
    enum Outcome: String, Encodable, Sendable {
        case newData, noData, fresh, failed
    }

    var type = "entry"
    var url: String
    var key: String
    var result: Outcome
    var error: String?

    init(entry: DiskCacheStoredEntry, result: Outcome, error: String? = nil) {
        url = entry.metadata.sourceURL?.absoluteString ?? entry.key
        key = entry.key
        self.result = result
        self.error = error
    }
}

/// The counts `refresh` reports (SDWebImage's background-fetch results, for a cache).
struct RefreshSummary: Encodable, Sendable {
    var type = "summary"
    var newData = 0
    var noData = 0
    var fresh = 0
    var failed = 0
    var skipped = 0

    init(skipped: Int) {
        self.skipped = skipped
    }

    mutating func count(_ record: RefreshRecord) {
        switch record.result {
        case .newData: newData += 1
        case .noData: noData += 1
        case .fresh: fresh += 1
        case .failed: failed += 1
        }
    }
}
