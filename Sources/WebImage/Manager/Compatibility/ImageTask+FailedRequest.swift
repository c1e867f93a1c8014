import Foundation

extension ImageTask {
    /// The finished task of a load whose SDWebImage-shaped request (a URL with
    /// ``ImageOptions`` and an ``ImageContext``) made no ``ImageRequest``: `completion`
    /// runs once with `error`, on `executor` when there is one, else before this returns.
    /// ``ImageManager/loadImage(with:options:context:progress:completion:)`` fails such a
    /// load the same way.
    static func failedRequest(
        of url: URL?, options: ImageOptions, error: ImageError, executor: ImageCallbackExecutor?,
        completion: @escaping @Sendable (Result<ImageResult, ImageError>) -> Void
    ) -> ImageTask {
        ImageCallbackExecutor.deliver(completion, on: executor)(.failure(error))
        return ImageTask(completedLoadOf: url, options: ImageRequest.Options(options), priority: options.downloadPriority)
    }
}
