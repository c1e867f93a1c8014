import Foundation
import Synchronization
import WebImage
import WebImageLocking

/// The tool's memory of URLs that failed permanently, kept between runs in
/// `<cache root>/failed-urls.tsv` (one `seconds-since-1970 TAB url TAB reason` a line).
///
/// The library's ``FailedURLs`` lives as long as its process, which for the tool is one
/// command; this file gives `fetch` the same behaviour across commands: a URL that failed
/// permanently (404, not an image…) is refused for ``ttl`` without a request, unless
/// `--retry-failed` is given. Transient failures (network, timeouts) are never recorded
/// (``ImageError/blocksURL``).
final class FailedURLFile: Sendable {
    struct Entry: Sendable {
        var date: Date
        var reason: String
    }

    /// How long a failure blocks its URL: the library's default.
    static let ttl: TimeInterval = 600

    let path: String
    private let entries: InlineLocked<[String: Entry]>
    private let changed = Atomic<Bool>(false)

    /// Loads the file under `rootDirectory` (no file: nothing blocked). Expired lines are dropped.
    init(rootDirectory: String, now: Date = Date()) {
        path = (rootDirectory.hasSuffix("/") ? rootDirectory : rootDirectory + "/") + "failed-urls.tsv"
        var loaded: [String: Entry] = [:]
        if let text = try? String(contentsOfFile: path, encoding: .utf8) {
            for line in text.split(separator: "\n") {
                let fields = line.split(separator: "\t", maxSplits: 2, omittingEmptySubsequences: false)
                guard fields.count == 3, let seconds = Double(fields[0]) else { continue }
                let date = Date(timeIntervalSince1970: seconds)
                if now.timeIntervalSince(date) < Self.ttl {
                    loaded[String(fields[1])] = Entry(date: date, reason: String(fields[2]))
                }
            }
        }
        entries = InlineLocked(loaded)
    }

    /// The failure blocking `url`, if any.
    func blocked(_ url: URL) -> Entry? {
        entries.withLock { $0[url.absoluteString] }
    }

    /// Records the outcome of a load: a permanent failure blocks the URL, a success unblocks it.
    func record(_ url: URL, error: ImageError?) {
        let key = url.absoluteString
        if let error {
            guard error.blocksURL else { return }
            // Tabs and newlines would break the line format.
            let reason = error.description.map { $0 == "\t" || $0 == "\n" ? " " : $0 }
            entries.withLock { $0[key] = Entry(date: Date(), reason: String(reason)) }
            changed.store(true, ordering: .relaxed)
        } else if entries.withLock({ $0.removeValue(forKey: key) }) != nil {
            changed.store(true, ordering: .relaxed)
        }
    }

    /// Writes the file back when something changed (atomically; the directory is created).
    func save() {
        guard changed.load(ordering: .relaxed) else { return }
        let text = entries.withLock { entries in
            entries.map { "\($0.value.date.timeIntervalSince1970)\t\($0.key)\t\($0.value.reason)\n" }.sorted().joined()
        }
        let directory = (path as NSString).deletingLastPathComponent
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try? Data(text.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
    }
}
