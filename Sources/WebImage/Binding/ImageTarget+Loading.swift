import Foundation

extension ImageTarget {
    /// Loads `request` through ``imageManager`` and puts the image on this object
    /// (SDWebImage's `sd_setImageWithURL`).
    ///
    /// In order:
    /// 1. The object's previous load under the same operation key
    ///    (``ImageTargetOptions/operationKey``) is cancelled: its completion runs with
    ///    ``ImageError/cancelled`` before this method goes on. Without
    ///    ``ImageTargetOptions/cancelsPreviousLoad`` it keeps running and still completes,
    ///    but it no longer puts anything on the object.
    /// 2. `placeholder` is applied before this method returns; with
    ///    ``ImageTargetOptions/PlaceholderTiming/onFailure``, only if the load fails before
    ///    any image of it was applied.
    /// 3. The image is loaded: partial images (progressive loads, and with
    ///    ``ImageRequest/Options/refreshCached`` the cached image at once, before the
    ///    revalidation answers) and the final image are applied as they arrive, unless
    ///    ``ImageTargetOptions/appliesImages`` is `false` and the object is left untouched.
    ///    Only the latest load of an operation key ever applies anything.
    ///
    /// `completed` has ``ImageManager/loadImage(_:progress:completion:)``'s contract: it
    /// runs with each intermediate result (`isFinal == false`) and exactly once with the
    /// final result or error, also for a superseded load. A memory hit completes before
    /// this method returns.
    ///
    /// With a ``ImageRequest/callbackExecutor``, every ``apply(_:update:)`` — the
    /// placeholder's included — and every call of `completed` run on that executor, in
    /// order, instead: nothing is applied or completed before this method returns.
    ///
    ///     var request = ImageRequest(url: url)
    ///     request.processing.thumbnailPixelSize = PixelSize(width: 200, height: 200)
    ///     request.callbackExecutor = mainLoopExecutor   // an ImageCallbackExecutor
    ///     tile.setImage(request, placeholder: grey) { result in … }
    ///
    /// A trailing closure is `completed`, as in SDWebImage's
    /// `sd_setImage(with:placeholderImage:completed:)`. `completed` takes no default so
    /// that Swift binds an unlabeled trailing closure to it rather than to `progress`;
    /// without callbacks, call ``setImage(_:placeholder:options:)``.
    ///
    /// - Returns: The running load, which can be cancelled on its own.
    @discardableResult
    public func setImage(
        _ request: ImageRequest,
        placeholder: Image? = nil,
        options: ImageTargetOptions = ImageTargetOptions(),
        progress: (@Sendable (DownloadProgress) -> Void)? = nil,
        completed: (@Sendable (Result<ImageResult, ImageError>) -> Void)?
    ) -> ImageTask {
        // The load's completions reach the executor through the manager; the placeholder
        // goes there from here.
        let call = ImageTargetCall(target: self, url: request.url, placeholder: placeholder, options: options, executor: request.callbackExecutor)
        let task = imageManager.loadImage(
            request, progress: call.progressHandler(for: self, progress), completion: call.completionHandler(for: self, completed)
        )
        call.operation.attach(task)
        return task
    }

    /// ``setImage(_:placeholder:options:progress:completed:)`` without callbacks: loads
    /// `request` and puts the image on this object.
    ///
    /// - Returns: The running load.
    @discardableResult
    public func setImage(
        _ request: ImageRequest,
        placeholder: Image? = nil,
        options: ImageTargetOptions = ImageTargetOptions()
    ) -> ImageTask {
        setImage(request, placeholder: placeholder, options: options, progress: nil, completed: nil)
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
