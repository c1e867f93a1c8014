import Foundation
import WebImageLocking

extension ImageTarget {
    /// Loads `url` through ``imageManager`` and puts the image on this object
    /// (SDWebImage's `sd_setImageWithURL`).
    ///
    /// In order:
    /// 1. The object's previous load for the same operation key
    ///    (``ImageContext/operationKey``, else ``ImageTargetUpdate/defaultOperationKey``) is
    ///    cancelled: its completion runs with ``ImageError/cancelled`` before this method
    ///    goes on. With ``ImageOptions/avoidAutoCancelImage`` it keeps running and still
    ///    completes, but it no longer puts anything on the object.
    /// 2. `placeholder` is applied before this method returns; with
    ///    ``ImageOptions/delayPlaceholder``, only if the load fails before any image of it
    ///    was applied.
    /// 3. The image is loaded: partial images (progressive loads, and with
    ///    ``ImageOptions/refreshCached`` the cached image at once, before the revalidation
    ///    answers) and the final image are applied as they arrive, unless
    ///    ``ImageOptions/avoidAutoSetImage`` leaves the object untouched. Only the latest
    ///    load of an operation key ever applies anything.
    ///
    /// `completed` has ``ImageManager/loadImage(with:options:context:progress:completion:)``'s
    /// contract: it runs with each intermediate result (`isFinal == false`) and exactly
    /// once with the final result or error, also for a superseded load. A memory hit
    /// completes before this method returns. A `nil` URL applies the placeholder,
    /// completes with ``ImageError/invalidURL(_:)`` at once and returns `nil`.
    ///
    /// With a ``ImageContext/callbackExecutor`` (the context's, else the manager's
    /// default context's), every ``apply(_:update:)`` — the placeholder's included — and
    /// every call of `completed` run on that executor, in order, instead: nothing is
    /// applied or completed before this method returns.
    ///
    /// A trailing closure is `completed`, as in SDWebImage's
    /// `sd_setImage(with:placeholderImage:completed:)`:
    /// `target.setImage(with: url, placeholder: p) { result in … }`. `completed` takes no
    /// default so that Swift binds an unlabeled trailing closure to it rather than to
    /// `progress`; without callbacks, call ``setImage(with:placeholder:options:context:)``.
    ///
    /// - Returns: The running load, which can be cancelled on its own; `nil` for a `nil` URL.
    @discardableResult
    public func setImage(
        with url: URL?,
        placeholder: Image? = nil,
        options: ImageOptions = [],
        context: ImageContext? = nil,
        progress: (@Sendable (DownloadProgress) -> Void)? = nil,
        completed: (@Sendable (Result<ImageResult, ImageError>) -> Void)?
    ) -> ImageTask? {
        let key = context?.operationKey ?? ImageTargetUpdate.defaultOperationKey
        let state = ImageTargetStates.shared.state(for: self)
        let operation = ImageTargetOperation(url: url)
        let previous = state.begin(operation, key: key)
        if !options.contains(.avoidAutoCancelImage) { previous?.cancel() }

        let placeholderUpdate = ImageTargetUpdate(kind: .placeholder, url: url, operationKey: key)
        // The load's completions reach the executor through the manager; the placeholder
        // and a nil URL's failure go there from here.
        let executor = (context ?? imageManager.defaultContext).callbackExecutor
        if !options.contains(.delayPlaceholder) {
            ImageCallbackExecutor.run({ state.applyIfCurrent(operation, key: key) { self.apply(placeholder, update: placeholderUpdate) } }, on: executor)
        }
        guard let url else {
            state.end(operation, key: key, succeeded: false)
            ImageCallbackExecutor.run({
                if options.contains(.delayPlaceholder) {
                    state.applyIfCurrent(operation, key: key) { self.apply(placeholder, update: placeholderUpdate) }
                }
                completed?(.failure(.invalidURL("")))
            }, on: executor)
            return nil
        }

        // Whether a loaded image (a cached one being refreshed, a progressive preview) is on
        // the object: a failure after it leaves it there instead of the delayed placeholder.
        let showsLoadedImage = Locked(false)
        let task = imageManager.load(
            url, options: options, context: context, forTarget: true,
            progress: { [weak self] report in
                guard self != nil else {
                    // Nobody will see this image: stop the load.
                    operation.cancel()
                    return
                }
                if let expected = report.expectedBytes, expected > 0 {
                    state.setProgress(min(1, Double(report.receivedBytes) / Double(expected)), of: operation, key: key)
                }
                progress?(report)
            },
            completion: { [weak self] result in
                switch result {
                case .success(let value):
                    if let self, !options.contains(.avoidAutoSetImage) {
                        let update = ImageTargetUpdate(
                            kind: value.isFinal ? .final : .partial, url: url, cacheType: value.cacheType, operationKey: key
                        )
                        state.applyIfCurrent(operation, key: key) { self.apply(value.image, update: update) }
                        showsLoadedImage.withLock { $0 = true }
                    }
                    if value.isFinal { state.end(operation, key: key, succeeded: true) }
                case .failure(let error):
                    if let self, error != .cancelled, options.contains(.delayPlaceholder), !showsLoadedImage.withLock({ $0 }) {
                        state.applyIfCurrent(operation, key: key) { self.apply(placeholder, update: placeholderUpdate) }
                    }
                    state.end(operation, key: key, succeeded: false)
                }
                completed?(result)
            }
        )
        operation.attach(task)
        return task
    }

    /// ``setImage(with:placeholder:options:context:progress:completed:)`` without callbacks:
    /// loads `url` and puts the image on this object.
    ///
    /// - Returns: The running load; `nil` for a `nil` URL.
    @discardableResult
    public func setImage(
        with url: URL?,
        placeholder: Image? = nil,
        options: ImageOptions = [],
        context: ImageContext? = nil
    ) -> ImageTask? {
        setImage(with: url, placeholder: placeholder, options: options, context: context, progress: nil, completed: nil)
    }

    /// Cancels this object's running load for `operationKey` (default
    /// ``ImageTargetUpdate/defaultOperationKey``): it completes with
    /// ``ImageError/cancelled`` and puts nothing more on the object. Does nothing when no
    /// load runs.
    public func cancelCurrentImageLoad(operationKey: String? = nil) {
        let key = operationKey ?? ImageTargetUpdate.defaultOperationKey
        ImageTargetStates.shared.existingState(for: self)?.removeRunning(key: key)?.cancel()
    }

    /// The URL of the latest `setImage` call for `operationKey`, running or ended.
    public func currentImageURL(forOperationKey operationKey: String) -> URL? {
        ImageTargetStates.shared.existingState(for: self)?.url(key: operationKey)
    }

    /// The URL of the latest `setImage` call for the default operation key
    /// (``ImageTargetUpdate/defaultOperationKey``), running or ended.
    public var currentImageURL: URL? { currentImageURL(forOperationKey: ImageTargetUpdate.defaultOperationKey) }

    /// The fraction (0…1) of the latest load for `operationKey` received so far: 0 until the
    /// server declares a length, 1 once it succeeded.
    public func currentProgress(forOperationKey operationKey: String) -> Double {
        ImageTargetStates.shared.existingState(for: self)?.progress(key: operationKey) ?? 0
    }

    /// The progress (0…1) of the latest load for the default operation key.
    public var currentProgress: Double { currentProgress(forOperationKey: ImageTargetUpdate.defaultOperationKey) }

    /// Whether a load for `operationKey` (default ``ImageTargetUpdate/defaultOperationKey``)
    /// is running.
    public func isLoadingImage(operationKey: String? = nil) -> Bool {
        ImageTargetStates.shared.existingState(for: self)?.isRunning(key: operationKey ?? ImageTargetUpdate.defaultOperationKey) ?? false
    }
}
