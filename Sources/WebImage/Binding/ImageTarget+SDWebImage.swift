import Foundation

/// SDWebImage's shape of an image target's load: a URL with ``ImageOptions`` and an
/// ``ImageContext``, turned into an ``ImageRequest`` (``ImageManager/request(for:options:context:)-(URL?,_,_)``,
/// which leaves the image-target options and the operation key to the target) and
/// ``ImageTargetOptions``, and loaded by ``ImageTarget/setImage(_:placeholder:options:progress:completed:)``.
extension ImageTarget {
    /// Loads `url` with `options` and `context` and puts the image on this object
    /// (SDWebImage's `sd_setImageWithURL`), as
    /// ``setImage(_:placeholder:options:progress:completed:)`` loads the request they make.
    ///
    /// The target options are ``ImageOptions/avoidAutoCancelImage``,
    /// ``ImageOptions/delayPlaceholder`` and ``ImageOptions/avoidAutoSetImage``, and the
    /// context's ``ImageContext/operationKey``. The callback executor is the request's:
    /// the context's, else the manager's default context's.
    ///
    /// A URL that makes no request still shows the placeholder: a `nil` URL completes with
    /// ``ImageError/invalidURL(_:)`` at once and returns `nil`; a request the options and
    /// context cannot make (an options processor cancelling it, a knob that cannot apply)
    /// completes with the error as a failed load.
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
        let targetOptions = ImageTargetOptions(options, context: context)
        do throws(ImageError) {
            let request = try imageManager.request(for: url, options: options, context: context, forTarget: true)
            return setImage(request, placeholder: placeholder, options: targetOptions, progress: progress, completed: completed)
        } catch {
            let executor = (context ?? imageManager.defaultContext).callbackExecutor
            let call = ImageTargetCall(target: self, url: url, placeholder: placeholder, options: targetOptions, executor: executor)
            guard url != nil else {
                call.fail(error, target: self, completed: completed)
                return nil
            }
            let task = ImageTask.failedRequest(
                of: url, options: options, error: error, executor: executor, completion: call.completionHandler(for: self, completed)
            )
            call.operation.attach(task)
            return task
        }
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
}

extension ImageTargetOptions {
    /// The target options SDWebImage's `options` and `context` carry: the three image-target
    /// options and the context's operation key.
    init(_ options: ImageOptions, context: ImageContext?) {
        self.init(
            operationKey: context?.operationKey ?? ImageTargetUpdate.defaultOperationKey,
            cancelsPreviousLoad: !options.contains(.avoidAutoCancelImage),
            placeholderTiming: options.contains(.delayPlaceholder) ? .onFailure : .atStart,
            appliesImages: !options.contains(.avoidAutoSetImage)
        )
    }
}
