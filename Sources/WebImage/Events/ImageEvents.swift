import Foundation
import Synchronization
import WebImageLocking

/// Broadcasts ``ImageEvent``s to observers: closures and `AsyncStream`s.
///
/// Observers are called synchronously on the thread that emits, in emission order;
/// keep them short. A stream buffers up to `bufferingNewest` events for a slow reader.
public final class ImageEvents: Sendable {
    /// A registered observer; cancel it (or let the stream end) to stop receiving events.
    public struct Observation: Sendable, Hashable {
        let id: Int
    }

    private struct State {
        var nextID = 0
        var observers: [Int: @Sendable (ImageEvent) -> Void] = [:]
    }

    private let state = Locked(State())
    /// The number of observers, readable without the lock: with none (the usual case on a
    /// server) emitting costs one load. An observer added while an event is being emitted
    /// may miss that event.
    private let observerCount = Atomic<Int>(0)

    /// Creates an event hub with no observers.
    public init() {}

    /// Calls `observer` for every event from now on.
    @discardableResult
    public func observe(_ observer: @escaping @Sendable (ImageEvent) -> Void) -> Observation {
        state.withLock {
            $0.nextID += 1
            $0.observers[$0.nextID] = observer
            observerCount.store($0.observers.count, ordering: .relaxed)
            return Observation(id: $0.nextID)
        }
    }

    /// Stops calling the observer registered as `observation`.
    public func removeObserver(_ observation: Observation) {
        state.withLock {
            $0.observers.removeValue(forKey: observation.id)
            observerCount.store($0.observers.count, ordering: .relaxed)
        }
    }

    /// A stream of every event from now on; it ends when the consuming task is cancelled.
    public func stream(bufferingNewest limit: Int = 1_000) -> AsyncStream<ImageEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: ImageEvent.self, bufferingPolicy: .bufferingNewest(limit))
        let observation = observe { continuation.yield($0) }
        continuation.onTermination = { [weak self] _ in self?.removeObserver(observation) }
        return stream
    }

    /// Whether anyone is listening; emitters skip building events when nobody is.
    public var hasObservers: Bool { observerCount.load(ordering: .relaxed) > 0 }

    /// Delivers `event` to every observer.
    public func emit(_ event: ImageEvent) {
        guard hasObservers else { return }
        let observers = state.withLock { Array($0.observers.sorted { $0.key < $1.key }.map(\.value)) }
        for observer in observers { observer(event) }
    }
}
