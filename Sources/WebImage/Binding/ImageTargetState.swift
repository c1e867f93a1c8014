import Foundation
import WebImageLocking

/// One `setImage` call's load: the ``ImageTask`` it started, which may be cancelled before
/// the task exists (a newer call on another thread can supersede it while the manager is
/// still setting it up).
final class ImageTargetOperation: Sendable {
    let url: URL?
    private let link = CancellationLink<ImageTask>()

    init(url: URL?) { self.url = url }

    /// Keeps `task` so that ``cancel()`` can reach it; cancels it at once when the
    /// operation was cancelled already.
    func attach(_ task: ImageTask) { link.attach(task) { $0.cancel() } }

    /// Cancels the load: its completion runs with `cancelled` now (or as soon as its task
    /// is attached).
    func cancel() { link.cancel { $0.cancel() } }
}

/// The binding state of one ``ImageTarget`` object: per operation key, the current load,
/// URL and progress.
///
/// Two locks: `slots` guards the data and is held only briefly; `applying` serialises the
/// object's `apply` calls with the start of a new load, so that a superseded load can
/// never land once a newer one began. `apply` runs under `applying` only, so it may read
/// the object's URL and progress (which take `slots`).
final class ImageTargetState: Sendable {
    struct Slot {
        /// The latest load; `nil` after it was cancelled by ``ImageTarget/cancelCurrentImageLoad(operationKey:)``.
        var operation: ImageTargetOperation?
        /// Whether `operation` still runs.
        var isRunning = false
        var url: URL?
        var progress = 0.0
    }

    private let slots = Locked<[String: Slot]>([:])
    private let applying = Locked(())

    /// Makes `operation` the current load of `key`; returns the previous load if it
    /// still runs.
    func begin(_ operation: ImageTargetOperation, key: String) -> ImageTargetOperation? {
        applying.withLock { _ in
            slots.withLock { slots in
                let previous = slots[key].flatMap { $0.isRunning ? $0.operation : nil }
                slots[key] = Slot(operation: operation, isRunning: true, url: operation.url, progress: 0)
                return previous
            }
        }
    }

    /// Removes the current load of `key` and returns it if it still runs.
    func removeRunning(key: String) -> ImageTargetOperation? {
        applying.withLock { _ in
            slots.withLock { slots -> ImageTargetOperation? in
                guard let slot = slots[key], let operation = slot.operation else { return nil }
                slots[key]?.operation = nil
                slots[key]?.isRunning = false
                return slot.isRunning ? operation : nil
            }
        }
    }

    /// Runs `body` (the object's `apply`) when `operation` is the current load of `key`,
    /// while no newer load can begin.
    func applyIfCurrent(_ operation: ImageTargetOperation, key: String, _ body: () -> Void) {
        applying.withLock { _ in
            guard slots.withLock({ $0[key]?.operation === operation }) else { return }
            body()
        }
    }

    /// Records progress of `operation` if it is current.
    func setProgress(_ fraction: Double, of operation: ImageTargetOperation, key: String) {
        slots.withLock { slots in
            guard slots[key]?.operation === operation else { return }
            slots[key]?.progress = fraction
        }
    }

    /// Marks `operation` as ended if it is current; a success sets the progress to 1.
    func end(_ operation: ImageTargetOperation, key: String, succeeded: Bool) {
        slots.withLock { slots in
            guard slots[key]?.operation === operation else { return }
            slots[key]?.isRunning = false
            if succeeded { slots[key]?.progress = 1 }
        }
    }

    /// The URL of the latest `setImage` for `key`.
    func url(key: String) -> URL? { slots.withLock { $0[key]?.url } }

    /// The progress (0…1) of the latest load for `key`.
    func progress(key: String) -> Double { slots.withLock { $0[key]?.progress ?? 0 } }

    /// Whether a load for `key` is running.
    func isRunning(key: String) -> Bool { slots.withLock { $0[key]?.isRunning ?? false } }
}

/// The side table from objects to their ``ImageTargetState``: keyed by `ObjectIdentifier`,
/// holding each object weakly (Linux has no associated objects). An identifier can be
/// reused by a new object at a dead object's address, so an entry counts only while its
/// weak reference still points at the object asked about.
final class ImageTargetStates: Sendable {
    private struct Entry {
        weak var object: (any ImageTarget)?
        let state: ImageTargetState
    }

    private struct Table {
        var entries: [ObjectIdentifier: Entry] = [:]
        /// Dead entries are swept when the table grows past this size.
        var sweepThreshold = 64
    }

    /// The table every ``ImageTarget`` uses.
    static let shared = ImageTargetStates()

    private let table = Locked(Table())

    /// The state of `object`, created on first use.
    func state(for object: any ImageTarget) -> ImageTargetState {
        let id = ObjectIdentifier(object)
        return table.withLock { table in
            if let entry = table.entries[id], entry.object === object { return entry.state }
            if table.entries.count >= table.sweepThreshold {
                table.entries = table.entries.filter { $0.value.object != nil }
                table.sweepThreshold = max(64, table.entries.count * 2)
            }
            let state = ImageTargetState()
            table.entries[id] = Entry(object: object, state: state)
            return state
        }
    }

    /// The state of `object` if it has one (a read never creates an entry).
    func existingState(for object: any ImageTarget) -> ImageTargetState? {
        let id = ObjectIdentifier(object)
        return table.withLock { table in
            guard let entry = table.entries[id], entry.object === object else { return nil }
            return entry.state
        }
    }

    /// Entries held now, dead ones included until the next sweep (for tests).
    var count: Int { table.withLock { $0.entries.count } }

    /// Entries whose object is still alive (for tests).
    var liveCount: Int { table.withLock { $0.entries.values.filter { $0.object != nil }.count } }
}
