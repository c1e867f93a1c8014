import WebImageLocking

/// An ordered list of handlers that can change at any time from any thread, where the
/// entry added last has the highest priority: the shared shape of ``ImageLoadersManager``
/// and ``ImageCodersManager``.
///
/// Reads take a snapshot under the lock; callers run the chosen entry without holding it,
/// so a slow entry never blocks a change to the list.
struct PriorityRegistry<Entry: Sendable>: ~Copyable, Sendable {
    private let state: InlineLocked<[Entry]>

    /// A registry holding `entries` in order of addition: the last has the highest priority.
    init(_ entries: [Entry]) {
        state = InlineLocked(entries)
    }

    /// The entries in order of addition (the last is asked first).
    var entries: [Entry] {
        state.withLock { $0 }
    }

    /// Replaces the whole list.
    func replace(with entries: [Entry]) {
        state.withLock { $0 = entries }
    }

    /// Adds `entry` with the highest priority.
    func add(_ entry: Entry) {
        state.withLock { $0.append(entry) }
    }

    /// Removes every occurrence of `object`, compared by identity; value entries never match.
    func remove(identicalTo object: AnyObject) {
        state.withLock { entries in
            entries.removeAll { candidate in
                type(of: candidate as Any) is AnyClass && (candidate as AnyObject) === object
            }
        }
    }

    /// Removes every entry for which `shouldRemove` returns `true` and returns how many
    /// were removed. `shouldRemove` runs under the lock: it must not call this registry.
    func removeAll(where shouldRemove: (Entry) -> Bool) -> Int {
        state.withLock { entries in
            let before = entries.count
            entries.removeAll(where: shouldRemove)
            return before - entries.count
        }
    }

    /// The highest-priority entry of `snapshot` that `accepts`.
    static func first(in snapshot: [Entry], where accepts: (Entry) -> Bool) -> Entry? {
        snapshot.last(where: accepts)
    }

    /// The highest-priority entry that `accepts`, from a snapshot of the list.
    func first(where accepts: (Entry) -> Bool) -> Entry? {
        Self.first(in: entries, where: accepts)
    }
}
