import WebImageLocking

/// The priority of work that others wait for: the highest of its own base and of the
/// priorities linked into it, passed on to what observes it whenever it changes.
///
/// Every load has one (its ``ImageTask/priority`` is the base, which the task can change
/// while it waits). Work that several loads share — a download, a decode, a stage's
/// value — follows the priority of the load that drives it, and each load that joins the
/// work links its own priority into the driver's while it waits. So the queue of the
/// download at the bottom orders it by the highest priority of everyone waiting for it,
/// and a change reaches it at once.
///
/// The current one is a task local: work a load starts runs at that load's priority.
/// Links hold no locks of the other side: a change is passed on after the lock that made
/// it is released, with a generation number, so that a late message never undoes a newer
/// one.
final class SharedPriority: Sendable {
    /// The priority of the load running in the current task, if any.
    @TaskLocal static var current: SharedPriority?

    private struct State {
        var base: DownloadPriority?
        /// The priorities linked in, by link id, each with the generation it was sent at.
        var inputs: [Int: (value: DownloadPriority, generation: Int)] = [:]
        var observers: [Int: @Sendable (DownloadPriority, Int) -> Void] = [:]
        var nextID = 0
        var effective: DownloadPriority
        /// Counts the changes of `effective`.
        var generation = 0

        mutating func recompute() -> (DownloadPriority, Int, [@Sendable (DownloadPriority, Int) -> Void])? {
            let value = inputs.values.reduce(base ?? .low) { max($0, $1.value) }
            guard value != effective else { return nil }
            effective = value
            generation += 1
            return (value, generation, Array(observers.values))
        }

        mutating func nextIdentifier() -> Int {
            nextID += 1
            return nextID
        }
    }

    private let state: InlineLocked<State>

    /// A priority whose own part is `base`; `nil`: only what is linked in counts (at least
    /// ``DownloadPriority/low``).
    init(_ base: DownloadPriority?) {
        state = InlineLocked(State(base: base, effective: base ?? .low))
    }

    /// Runs `body` as a load of priority `base` — or, inside a load already, as part of
    /// that load, at its priority.
    static func run<T: Sendable>(_ base: DownloadPriority, _ body: () async throws(ImageError) -> T) async throws(ImageError) -> T {
        if current != nil { return try await body() }
        let result = await $current.withValue(SharedPriority(base)) { () async -> Result<T, ImageError> in
            do throws(ImageError) {
                return .success(try await body())
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// The highest of the base and everything linked in.
    var value: DownloadPriority { state.withLock { $0.effective } }

    /// The priority's own part.
    var base: DownloadPriority? { state.withLock { $0.base } }

    /// Changes the priority's own part.
    func setBase(_ base: DownloadPriority) {
        let change = state.withLock { state in
            state.base = base
            return state.recompute()
        }
        Self.announce(change)
    }

    /// Runs `observer` with the value after each change (not with the value now, which
    /// it returns with its generation), until the returned id is passed to
    /// ``removeObserver(_:)``. `observer` runs on the thread that made the change.
    func observe(_ observer: @escaping @Sendable (DownloadPriority, Int) -> Void) -> (id: Int, value: DownloadPriority, generation: Int) {
        state.withLock { state in
            let id = state.nextIdentifier()
            state.observers[id] = observer
            return (id, state.effective, state.generation)
        }
    }

    /// Stops the observer `id`.
    func removeObserver(_ id: Int) {
        _ = state.withLock { $0.observers.removeValue(forKey: id) }
    }

    /// Links this priority into `target` until the link is cut: `target` is at least as
    /// high as this one meanwhile.
    func link(into target: SharedPriority) -> Link {
        let input = target.addInput()
        let observation = observe { [weak target] value, generation in
            target?.setInput(input, value, generation: generation)
        }
        target.setInput(input, observation.value, generation: observation.generation)
        return Link(source: self, observer: observation.id, target: target, input: input)
    }

    /// One priority linked into another (``link(into:)``).
    struct Link: Sendable {
        fileprivate let source: SharedPriority
        fileprivate let observer: Int
        fileprivate weak var target: SharedPriority?
        fileprivate let input: Int

        /// Ends the link; the target falls back to what else holds it up.
        func cut() {
            source.removeObserver(observer)
            target?.removeInput(input)
        }
    }

    private func addInput() -> Int {
        state.withLock { state in
            let id = state.nextIdentifier()
            // The lowest generation: the first real value always replaces it.
            state.inputs[id] = (.low, -1)
            return id
        }
    }

    /// Sets input `id` unless it is gone or holds a newer generation.
    private func setInput(_ id: Int, _ value: DownloadPriority, generation: Int) {
        let change = state.withLock { state -> (DownloadPriority, Int, [@Sendable (DownloadPriority, Int) -> Void])? in
            guard let current = state.inputs[id], current.generation < generation else { return nil }
            state.inputs[id] = (value, generation)
            return state.recompute()
        }
        Self.announce(change)
    }

    private func removeInput(_ id: Int) {
        let change = state.withLock { state in
            state.inputs.removeValue(forKey: id) == nil ? nil : state.recompute()
        }
        Self.announce(change)
    }

    private static func announce(_ change: (DownloadPriority, Int, [@Sendable (DownloadPriority, Int) -> Void])?) {
        guard let (value, generation, observers) = change else { return }
        for observer in observers { observer(value, generation) }
    }
}
