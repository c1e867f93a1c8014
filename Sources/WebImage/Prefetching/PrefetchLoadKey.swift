import Foundation
import Synchronization

/// What makes prefetched requests one load: prefetches whose requests have equal keys at
/// once share one load through the manager, and each of them hears how it ended.
///
/// Two requests have equal keys when every field of theirs is equal: values by value, a
/// transformer by its ``ImageTransformer/key`` (as the caches tell transformers apart), a
/// custom source by its key (as the manager coalesces custom sources), and caches, loaders
/// and coders that are objects by identity. A closure (a key filter, a serializer, a
/// modifier, a decryptor, a callback executor) or a cache, loader or coder that is a value
/// cannot be compared: a request with one has a key equal only to the requests the same
/// ``Recipe`` makes for the same URL, and a request given as it is shares its load with
/// no other.
struct PrefetchLoadKey: Hashable, Sendable {
    /// What makes a request from its URL, such that the requests it makes for one URL are
    /// the same request: `maker` names an object that lives as long as the requests it
    /// made (kept alive by the prefetches that load them), `variant` tells apart the
    /// requests one maker makes in different ways.
    struct Recipe: Hashable, Sendable {
        let maker: ObjectIdentifier
        let variant: Int
    }

    /// Where the fields that cannot be compared come from.
    private enum Provenance: Hashable, Sendable {
        /// Every field is compared.
        case comparable
        /// Made by a recipe.
        case recipe(Recipe)
        /// A request of its own.
        case unique(Int)
    }

    private enum Source: Hashable, Sendable {
        case url(URL)
        case custom(String)

        init(_ source: ImageSource) {
            switch source {
            case .url(let url): self = .url(url)
            case .custom(let key, _): self = .custom(key)
            }
        }
    }

    private let source: Source
    private let alternativeSources: [Source]
    private let cachesUnderAnsweringSource: Bool
    private let thumbnailPixelSize: PixelSize?
    private let preserveAspectRatio: Bool
    private let transformerKey: String?
    private let transformsAnimations: Bool
    private let firstFrameOnly: Bool
    private let scaleDownLimitBytes: Int?
    private let preferEmbeddedThumbnail: Bool
    private let scaleFactor: Double?
    private let jpegShrink: ImageDecodeOptions.JPEGShrink
    private let output: ImageOutput
    private let priority: DownloadPriority
    private let options: ImageRequest.Options
    private let query: CacheType
    private let store: CacheType
    private let originalsQuery: CacheType?
    private let originalsStore: CacheType?
    private let freshness: CacheFreshness?
    /// The cache, the originals' cache, the loader and the coder.
    private let objects: [ObjectIdentifier?]
    private let limits: ImageLimits
    private let maxSourceBytes: Int?
    private let sourceConditions: SourceConditions?
    private let retryPolicy: RetryPolicy?
    private let timeout: Duration?
    private let provenance: Provenance

    /// The key of `request`, made by `recipe` from its URL (`nil`: given as it is).
    init(_ request: ImageRequest, recipe: Recipe?) {
        source = Source(request.source)
        alternativeSources = request.alternativeSources.map(Source.init)
        let processing = request.processing
        thumbnailPixelSize = processing.thumbnailPixelSize
        preserveAspectRatio = processing.preserveAspectRatio
        transformerKey = processing.transformer?.key
        transformsAnimations = processing.transformsAnimations
        firstFrameOnly = processing.firstFrameOnly
        scaleDownLimitBytes = processing.scaleDownLimitBytes
        preferEmbeddedThumbnail = processing.preferEmbeddedThumbnail
        scaleFactor = processing.scaleFactor
        jpegShrink = processing.jpegShrink
        output = request.output
        priority = request.priority
        options = request.options
        let caching = request.caching
        query = caching.query
        store = caching.store
        originalsQuery = caching.originals?.query
        originalsStore = caching.originals?.store
        freshness = caching.freshness
        cachesUnderAnsweringSource = caching.cachesUnderAnsweringSource
        let objects: [Any?] = [caching.cache, caching.originals?.cache, request.loader, request.coder]
        var comparable = caching.keyFilter == nil && caching.serializer == nil && request.requestModifier == nil
            && request.responseModifier == nil && request.decryptor == nil && request.callbackExecutor == nil && request.userInfo.isEmpty
        self.objects = objects.map { object in
            guard let object else { return nil }
            guard type(of: object) is AnyClass else {
                comparable = false
                return nil
            }
            return ObjectIdentifier(object as AnyObject)
        }
        limits = request.limits
        maxSourceBytes = request.maxSourceBytes
        sourceConditions = request.sourceConditions
        retryPolicy = request.retryPolicy
        timeout = request.timeout
        if comparable {
            provenance = .comparable
        } else if let recipe {
            provenance = .recipe(recipe)
        } else {
            provenance = .unique(Self.counter.add(1, ordering: .relaxed).newValue)
        }
    }

    private static let counter = Atomic<Int>(0)
}
