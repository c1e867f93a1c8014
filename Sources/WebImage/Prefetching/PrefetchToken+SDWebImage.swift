import Foundation

extension PrefetchToken {
    /// The options each URL of this prefetch is loaded with (``ImageOptions/lowPriority``
    /// included); empty for a prefetch of ``ImageRequest``s, each loaded as it is.
    public var options: ImageOptions { requests.settings?.options ?? [] }
    /// The context each URL of this prefetch is loaded with (`nil`: the manager's default
    /// context); `nil` for a prefetch of ``ImageRequest``s.
    public var context: ImageContext? { requests.settings?.context }
}
