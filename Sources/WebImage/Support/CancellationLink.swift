import WebImageLocking

/// Connects a Swift task's cancellation handler to something cancellable that is created
/// inside the task's body, whichever of the two happens first.
///
/// `withTaskCancellationHandler` may run its handler before the body has created the
/// thing to cancel; the link remembers the cancellation and applies it on `attach`.
final class CancellationLink<Target: Sendable>: Sendable {
    private enum State {
        case waiting
        case attached(Target)
        case cancelled
    }

    private let state = InlineLocked(State.waiting)

    init() {}

    /// Attaches `target`; cancels it at once (with `cancel`) if the task was already cancelled.
    func attach(_ target: Target, cancel: (Target) -> Void) {
        let cancelNow = state.withLock { state -> Bool in
            if case .cancelled = state { return true }
            state = .attached(target)
            return false
        }
        if cancelNow { cancel(target) }
    }

    /// Cancels the attached target, or remembers to cancel it when it is attached.
    func cancel(_ cancel: (Target) -> Void) {
        let target = state.withLock { state -> Target? in
            defer { state = .cancelled }
            if case .attached(let target) = state { return target }
            return nil
        }
        if let target { cancel(target) }
    }
}
