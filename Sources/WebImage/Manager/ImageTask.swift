import Foundation

/// A running ``ImageManager`` load that can be cancelled (SDWebImageCombinedOperation's
/// counterpart).
///
/// Its completion runs with every intermediate result (`isFinal == false`) and exactly
/// once with the final result or error; cancelling completes it with
/// ``ImageError/cancelled`` at once, unless it already completed.
public final class ImageTask: Sendable {
    /// The URL being loaded.
    public let url: URL?
    /// The options the load runs with.
    public let options: ImageOptions

    private struct State {
        var completion: (@Sendable (Result<ImageResult, ImageError>) -> Void)?
        var task: Task<Void, Never>?
        var cancelled = false
    }

    /// `nil` for a task that completed before it was returned: it has no state to guard.
    private let state: Locked<State>?
    private let onEnd: @Sendable (ImageTask) -> Void

    init(
        url: URL?,
        options: ImageOptions,
        completion: @escaping @Sendable (Result<ImageResult, ImageError>) -> Void,
        onEnd: @escaping @Sendable (ImageTask) -> Void
    ) {
        self.url = url
        self.options = options
        self.state = Locked(State(completion: completion))
        self.onEnd = onEnd
    }

    /// A task that completed before it was returned (a memory hit): nothing to cancel.
    init(completedLoadOf url: URL, options: ImageOptions) {
        self.url = url
        self.options = options
        self.state = nil
        self.onEnd = Self.nothingToEnd
    }

    private static let nothingToEnd: @Sendable (ImageTask) -> Void = { _ in }

    /// Whether ``cancel()`` was called before the load completed.
    public var isCancelled: Bool { state?.withLock { $0.cancelled } ?? false }

    /// Whether the final completion has run.
    public var isFinished: Bool { state?.withLock { $0.completion == nil } ?? true }

    /// Cancels the load: the completion runs with `cancelled` now, and the download, if
    /// this was its last caller, stops.
    public func cancel() {
        guard let state else { return }
        let (completion, task) = state.withLock { state -> ((@Sendable (Result<ImageResult, ImageError>) -> Void)?, Task<Void, Never>?) in
            guard let completion = state.completion else { return (nil, nil) }
            state.completion = nil
            state.cancelled = true
            return (completion, state.task)
        }
        guard let completion else { return }
        task?.cancel()
        completion(.failure(.cancelled))
        onEnd(self)
    }

    func attach(_ task: Task<Void, Never>) {
        guard let state else {
            task.cancel()
            return
        }
        let alreadyCancelled = state.withLock { state -> Bool in
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
        guard let state else { return }
        let completion = state.withLock { state -> (@Sendable (Result<ImageResult, ImageError>) -> Void)? in
            guard let completion = state.completion else { return nil }
            if isFinal {
                state.completion = nil
                state.task = nil
            }
            return completion
        }
        guard let completion else { return }
        completion(result)
        if isFinal { onEnd(self) }
    }
}
