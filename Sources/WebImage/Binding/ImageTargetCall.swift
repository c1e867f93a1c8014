import Foundation
import WebImageLocking

/// One `setImage` call on an object: its load's place under its operation key, and what
/// the call does with the object as the load goes (``ImageTargetOptions``).
struct ImageTargetCall<Target: ImageTarget>: Sendable {
    let operation: ImageTargetOperation
    private let state: ImageTargetState
    private let key: String
    private let url: URL?
    private let placeholder: Image?
    private let placeholderUpdate: ImageTargetUpdate
    private let options: ImageTargetOptions
    private let executor: ImageCallbackExecutor?

    /// Begins a call on `target` for `url`: makes it the object's current load under the
    /// operation key, cancels the previous one (unless `options` say not to), and shows
    /// `placeholder` on `executor` unless it waits for a failure.
    init(target: Target, url: URL?, placeholder: Image?, options: ImageTargetOptions, executor: ImageCallbackExecutor?) {
        let key = options.operationKey
        let state = ImageTargetStates.shared.state(for: target)
        let operation = ImageTargetOperation(url: url)
        let previous = state.begin(operation, key: key)
        if options.cancelsPreviousLoad { previous?.cancel() }
        let placeholderUpdate = ImageTargetUpdate(kind: .placeholder, url: url, operationKey: key)
        if options.placeholderTiming == .atStart {
            ImageCallbackExecutor.run({ state.applyIfCurrent(operation, key: key) { target.apply(placeholder, update: placeholderUpdate) } }, on: executor)
        }
        self.operation = operation
        self.state = state
        self.key = key
        self.url = url
        self.placeholder = placeholder
        self.placeholderUpdate = placeholderUpdate
        self.options = options
        self.executor = executor
    }

    /// The load's progress handler: records the fraction received and calls `progress`;
    /// once `target` is gone, it cancels the load instead, since nobody will see its image.
    func progressHandler(for target: Target, _ progress: (@Sendable (DownloadProgress) -> Void)?) -> @Sendable (DownloadProgress) -> Void {
        let (state, operation, key) = (self.state, self.operation, self.key)
        return { [weak target] report in
            guard target != nil else {
                operation.cancel()
                return
            }
            if let expected = report.expectedBytes, expected > 0 {
                state.setProgress(min(1, Double(report.receivedBytes) / Double(expected)), of: operation, key: key)
            }
            progress?(report)
        }
    }

    /// The load's completion: puts each image on `target` while the call is current
    /// (unless the options leave the object alone), shows a delayed placeholder on a
    /// failure before any image, ends the call, and calls `completed`.
    func completionHandler(
        for target: Target, _ completed: (@Sendable (Result<ImageResult, ImageError>) -> Void)?
    ) -> @Sendable (Result<ImageResult, ImageError>) -> Void {
        let call = self
        // Whether a loaded image (a cached one being refreshed, a progressive preview) is on
        // the object: a failure after it leaves it there instead of the delayed placeholder.
        let showsLoadedImage = Locked(false)
        return { [weak target] result in
            switch result {
            case .success(let value):
                if let target, call.options.appliesImages {
                    let update = ImageTargetUpdate(
                        kind: value.isFinal ? .final : .partial, url: call.url, cacheType: value.cacheType, operationKey: call.key
                    )
                    call.state.applyIfCurrent(call.operation, key: call.key) { target.apply(value.image, update: update) }
                    showsLoadedImage.withLock { $0 = true }
                }
                if value.isFinal { call.state.end(call.operation, key: call.key, succeeded: true) }
            case .failure(let error):
                if let target, error != .cancelled, call.options.placeholderTiming == .onFailure, !showsLoadedImage.withLock({ $0 }) {
                    call.state.applyIfCurrent(call.operation, key: call.key) { target.apply(call.placeholder, update: call.placeholderUpdate) }
                }
                call.state.end(call.operation, key: call.key, succeeded: false)
            }
            completed?(result)
        }
    }

    /// Ends a call that loads nothing (it has no URL) with `error`: on the executor, the
    /// delayed placeholder, then `completed`.
    func fail(_ error: ImageError, target: Target, completed: (@Sendable (Result<ImageResult, ImageError>) -> Void)?) {
        state.end(operation, key: key, succeeded: false)
        let call = self
        ImageCallbackExecutor.run({
            if call.options.placeholderTiming == .onFailure {
                call.state.applyIfCurrent(call.operation, key: call.key) { target.apply(call.placeholder, update: call.placeholderUpdate) }
            }
            completed?(.failure(error))
        }, on: executor)
    }
}
