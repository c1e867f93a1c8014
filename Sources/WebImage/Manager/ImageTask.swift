import Foundation

/// A running ``ImageManager`` load that can be cancelled (SDWebImageCombinedOperation's
/// counterpart).
///
/// Its completion runs with every intermediate result (`isFinal == false`) and exactly
/// once with the final result or error; cancelling completes it with
/// ``ImageError/cancelled`` at once, unless it already completed.
///
/// A handle, like `Task`: copies refer to the same load, and cancelling any of them
/// cancels it. A load that completed before it was returned (a memory hit) has a handle
/// with nothing behind it, so that it costs no allocation.
public struct ImageTask: Sendable {
    /// The URL being loaded.
    public let url: URL?
    /// The options the load runs with.
    public let options: ImageOptions

    /// `nil` for a task that completed before it was returned: it has no state to guard.
    let control: Control?

    /// The shared state of a running load: its completion, its Swift task, and whether it
    /// was cancelled.
    final class Control: Sendable {
        struct State {
            var completion: (@Sendable (Result<ImageResult, ImageError>) -> Void)?
            var task: Task<Void, Never>?
            var cancelled = false
        }

        let state: InlineLocked<State>
        /// Runs once, after the final completion.
        let onEnd: @Sendable (Control) -> Void

        init(
            completion: @escaping @Sendable (Result<ImageResult, ImageError>) -> Void,
            onEnd: @escaping @Sendable (Control) -> Void
        ) {
            state = InlineLocked(State(completion: completion))
            self.onEnd = onEnd
        }
    }

    /// A running load, cancelled and completed through `control`.
    init(url: URL?, options: ImageOptions, control: Control) {
        self.url = url
        self.options = options
        self.control = control
    }

    /// A task that completed before it was returned (a memory hit): nothing to cancel.
    init(completedLoadOf url: URL, options: ImageOptions) {
        self.url = url
        self.options = options
        self.control = nil
    }

    /// Whether ``cancel()`` was called before the load completed.
    public var isCancelled: Bool { control?.state.withLock { $0.cancelled } ?? false }

    /// Whether the final completion has run.
    public var isFinished: Bool { control?.state.withLock { $0.completion == nil } ?? true }

    /// Cancels the load: the completion runs with `cancelled` now, and the download, if
    /// this was its last caller, stops.
    public func cancel() {
        guard let control else { return }
        let (completion, task) = control.state.withLock { state -> ((@Sendable (Result<ImageResult, ImageError>) -> Void)?, Task<Void, Never>?) in
            guard let completion = state.completion else { return (nil, nil) }
            state.completion = nil
            state.cancelled = true
            return (completion, state.task)
        }
        guard let completion else { return }
        task?.cancel()
        completion(.failure(.cancelled))
        control.onEnd(control)
    }

    func attach(_ task: Task<Void, Never>) {
        guard let control else {
            task.cancel()
            return
        }
        let alreadyCancelled = control.state.withLock { state -> Bool in
            state.task = task
            return state.cancelled
        }
        if alreadyCancelled { task.cancel() }
    }

    /// Delivers a result; a final one (or any failure) ends the task.
    func deliver(_ result: Result<ImageResult, ImageError>) {
        let isFinal: Bool = switch result {
        case .success(let value): value.isFinal
        case .failure: true
        }
        guard let control else { return }
        let completion = control.state.withLock { state -> (@Sendable (Result<ImageResult, ImageError>) -> Void)? in
            guard let completion = state.completion else { return nil }
            if isFinal {
                state.completion = nil
                state.task = nil
            }
            return completion
        }
        guard let completion else { return }
        completion(result)
        if isFinal { control.onEnd(control) }
    }
}
