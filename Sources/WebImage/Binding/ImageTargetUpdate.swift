import Foundation

/// What an image handed to ``ImageTarget/apply(_:update:)`` is.
public struct ImageTargetUpdate: Sendable, Equatable {
    /// The role of the image.
    public enum Kind: Sendable, Equatable {
        /// The placeholder: at the start of a load, or on its failure with
        /// ``ImageTargetOptions/PlaceholderTiming/onFailure``.
        case placeholder
        /// A partial image of a progressive load, or a cached image about to be replaced
        /// by a refreshed one (``ImageResult/isFinal`` is `false`).
        case partial
        /// The loaded image.
        case final
    }

    /// The operation key of a `setImage` call whose options name none
    /// (``ImageTargetOptions/operationKey``).
    public static let defaultOperationKey = "image"

    /// The role of the image.
    public var kind: Kind
    /// The URL being loaded (`nil` when `setImage` was called without one).
    public var url: URL?
    /// Where a loaded image came from; ``CacheType/none`` for a placeholder or a download.
    public var cacheType: CacheType
    /// The operation key of the load (``ImageTargetOptions/operationKey``).
    public var operationKey: String

    /// Creates an update description.
    public init(kind: Kind, url: URL?, cacheType: CacheType = .none, operationKey: String = Self.defaultOperationKey) {
        self.kind = kind
        self.url = url
        self.cacheType = cacheType
        self.operationKey = operationKey
    }
}
