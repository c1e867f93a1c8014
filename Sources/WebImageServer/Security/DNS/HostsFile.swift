import Foundation
import WebImageLocking

/// The addresses `/etc/hosts` gives names, asked before any name server (as glibc's
/// `hosts: files dns` does). The file is read again when it changes, looked at no more
/// than once every few seconds.
final class HostsFile: Sendable {
    private struct Loaded {
        var names: [String: [IPAddress]] = [:]
        var modified: Date?
        var checked = ContinuousClock.Instant.now
    }

    /// The file read; `nil`: a fixed table (tests).
    let path: String?
    /// How often the file's modification time is looked at.
    let recheckInterval: Duration
    private let loaded: InlineLocked<Loaded>

    /// The file at `path`.
    init(path: String = "/etc/hosts", recheckInterval: Duration = .seconds(5)) {
        self.path = path
        self.recheckInterval = recheckInterval
        let modified = Self.modificationDate(path)
        loaded = InlineLocked(Loaded(names: Self.parse((try? String(contentsOfFile: path, encoding: .utf8)) ?? ""), modified: modified))
    }

    /// A fixed table, from the text of a hosts file.
    init(text: String) {
        path = nil
        recheckInterval = .seconds(5)
        loaded = InlineLocked(Loaded(names: Self.parse(text)))
    }

    /// The addresses the file gives `name` (compared without regard to case), or `nil`.
    func addresses(of name: String) -> [IPAddress]? {
        let key = name.lowercased()
        if let path {
            let now = ContinuousClock.now
            let due = loaded.withLock { state -> Bool in
                guard now - state.checked >= recheckInterval else { return false }
                state.checked = now
                return true
            }
            if due, let modified = Self.modificationDate(path), modified != loaded.withLock({ $0.modified }) {
                let names = Self.parse((try? String(contentsOfFile: path, encoding: .utf8)) ?? "")
                loaded.withLock {
                    $0.names = names
                    $0.modified = modified
                }
            }
        }
        return loaded.withLock { $0.names[key] }
    }

    /// `address name alias…` lines, `#` starting a comment.
    static func parse(_ text: String) -> [String: [IPAddress]] {
        var names: [String: [IPAddress]] = [:]
        for rawLine in text.split(whereSeparator: \.isNewline) {
            let line = rawLine.prefix { $0 != "#" }
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard fields.count >= 2, let address = IPAddress(parsing: String(fields[0].split(separator: "%")[0])) else { continue }
            for name in fields.dropFirst() {
                let key = name.lowercased()
                if !(names[key]?.contains(address) ?? false) { names[key, default: []].append(address) }
            }
        }
        return names
    }

    private static func modificationDate(_ path: String) -> Date? {
        (try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date
    }
}
