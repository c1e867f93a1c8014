import Foundation
import Testing
@testable import WebImage
import WebImageTestSupport

/// Every field of an ``ImageRequest`` against the keys of the stages it goes through: a row
/// says which keys a change of the field changes. A field added to the request (or to its
/// processing, caching or flags) without a row fails ``everyFieldHasARow()``; a field that
/// changes what a stage makes but is left out of its key fails its row.
@Suite("Stage keys")
struct StageKeysTests {
    /// A stage whose key a field can change; `result` is the cache key of the result.
    enum Stage: String, CaseIterable, CustomStringConvertible {
        case source, decode, process, image, variant, result
        var description: String { rawValue }
    }

    /// A request of the kind a row starts from.
    enum Base {
        /// A decoded image, resized.
        case image
        /// A WebP output, resized.
        case encoded
    }

    struct Row: CustomStringConvertible, Sendable {
        let field: String
        let base: Base
        let change: @Sendable (inout ImageRequest) -> Void
        let changes: Set<Stage>
        var description: String { field }

        init(_ field: String, _ base: Base = .encoded, changes: Set<Stage>, _ change: @escaping @Sendable (inout ImageRequest) -> Void) {
            self.field = field
            self.base = base
            self.change = change
            self.changes = changes
        }
    }

    static let url = URL(string: "https://example.com/a.jpg")!
    static let manager = ImageManager(cache: TestCaches.make(), loader: ImageLoaders([]))

    static func request(_ base: Base) -> ImageRequest {
        let resize = ResizeTransformer(size: PixelSize(width: 100, height: 80), mode: .fill)
        switch base {
        case .image: return ImageRequest(url: url, processing: ImageProcessing(transformer: resize))
        case .encoded: return ImageRequest(url: url, processing: ImageProcessing(transformer: resize), output: .encoded(VariantEncoding(format: .fixed(.webp))))
        }
    }

    /// Each stage's key, as equatable values.
    static func keys(_ request: ImageRequest, _ base: Base) -> [Stage: AnyHashable] {
        let resolved = ResolvedRequest(request, manager: manager)
        var keys: [Stage: AnyHashable] = [
            .source: resolved.sourceStageKey, .decode: resolved.decodeStageKey, .process: resolved.processStageKey,
            .result: resolved.key,
        ]
        switch base {
        case .image: keys[.image] = resolved.imageStageKey
        case .encoded: keys[.variant] = resolved.variantStageKey
        }
        return keys
    }

    static let sharedCache = TestCaches.make()

    /// What the processing, caching and flags of a request may change.
    static let rows: [Row] = [
        Row("source", changes: [.source, .decode, .process, .variant, .result]) { $0.source = .url(URL(string: "https://example.com/b.jpg")!) },
        // Each source is an attempt with keys of its own (``alternativeAttemptsHaveKeysOfTheirOwn()``):
        // the primary's are those of the request without alternatives, whose work it shares.
        Row("alternativeSources", changes: []) { $0.alternativeSources = [.url(URL(string: "https://mirror.example.com/a.jpg")!)] },
        Row("processing.thumbnailPixelSize", changes: [.decode, .process, .variant, .result]) {
            $0.processing.thumbnailPixelSize = PixelSize(width: 300, height: 300)
        },
        Row("processing.preserveAspectRatio", changes: [.decode, .process, .variant, .result]) {
            $0.processing.thumbnailPixelSize = PixelSize(width: 300, height: 300)
            $0.processing.preserveAspectRatio = false
        },
        // The decode may shrink for the transformer: its key is part of the plan.
        Row("processing.transformer", changes: [.decode, .process, .variant, .result]) {
            $0.processing.transformer = ResizeTransformer(size: PixelSize(width: 50, height: 40), mode: .fill)
        },
        // One transform serves both choices (the decoded animation comes with it).
        Row("processing.transformsAnimations", changes: [.variant, .result]) { $0.processing.transformsAnimations = false },
        // The cache key is SDWebImage's: the URL and the transformer's key.
        Row("processing.transformsAnimations", .image, changes: [.image]) { $0.processing.transformsAnimations = false },
        Row("processing.firstFrameOnly", changes: [.decode, .process, .variant, .result]) { $0.processing.firstFrameOnly = true },
        Row("processing.scaleDownLimitBytes", changes: [.decode, .process, .variant, .result]) { $0.processing.scaleDownLimitBytes = 1 << 20 },
        Row("processing.preferEmbeddedThumbnail", changes: [.decode, .process, .variant, .result]) { $0.processing.preferEmbeddedThumbnail = true },
        Row("processing.jpegShrink", changes: [.decode, .process, .variant, .result]) { $0.processing.jpegShrink = .toTarget },
        // Each request hands the shared image out at its own scale.
        Row("processing.scaleFactor", .image, changes: []) { $0.processing.scaleFactor = 3 },
        // Output-only: one decode and one transform for outputs that differ in quality or format.
        Row("output", changes: [.variant, .result]) { $0.output = .encoded(VariantEncoding(format: .fixed(.webp), quality: 50)) },
        Row("output", .image, changes: [.image]) { $0.output = .data },
        Row("priority", changes: []) { $0.priority = .high },
        Row("options.retryFailed", changes: []) { $0.options.insert(.retryFailed) },
        Row("options.progressiveLoad", .image, changes: [.source, .decode, .process, .image]) { $0.options.insert(.progressiveLoad) },
        Row("options.refreshCached", changes: [.variant]) { $0.options.insert(.refreshCached) },
        Row("options.refreshCached", .image, changes: [.image]) { $0.options.insert(.refreshCached) },
        Row("options.continueInBackground", changes: []) { $0.options.insert(.continueInBackground) },
        Row("options.handleCookies", changes: [.source, .decode, .process]) { $0.options.insert(.handleCookies) },
        Row("options.allowInvalidSSLCertificates", changes: [.source, .decode, .process]) { $0.options.insert(.allowInvalidSSLCertificates) },
        Row("options.fromCacheOnly", changes: [.source, .decode, .process, .variant]) { $0.options.insert(.fromCacheOnly) },
        Row("options.waitStoreCache", changes: [.variant]) { $0.options.insert(.waitStoreCache) },
        Row("options.waitStoreCache", .image, changes: [.image]) { $0.options.insert(.waitStoreCache) },
        Row("options.queryMemoryData", .image, changes: []) { $0.options.insert(.queryMemoryData) },
        Row("options.queryMemoryDataSync", .image, changes: []) { $0.options.insert([.queryMemoryData, .queryMemoryDataSync]) },
        Row("options.queryDiskDataSync", changes: []) { $0.options.insert(.queryDiskDataSync) },
        // An encoded output's source is in its originals' cache, which is the result's by default.
        Row("caching.cache", changes: [.source, .decode, .process, .variant]) { $0.caching.cache = sharedCache },
        Row("caching.query", changes: [.variant]) { $0.caching.query = .disk },
        Row("caching.store", changes: [.variant]) { $0.caching.store = .disk },
        Row("caching.keyFilter", changes: [.source, .decode, .process, .variant, .result]) { $0.caching.keyFilter = { _ in "other" } },
        Row("caching.serializer", .image, changes: [.image]) { $0.caching.serializer = { _, data, _ in data } },
        Row("caching.freshness", changes: [.source, .decode, .process, .variant]) { $0.caching.freshness = .always },
        Row("caching.freshness", .image, changes: [.source, .decode, .process, .image]) { $0.caching.freshness = .untilEvicted },
        // Where an alternative's result is kept: its attempt's keys, not the primary's.
        Row("caching.cachesUnderAnsweringSource", changes: []) { $0.caching.cachesUnderAnsweringSource = true },
        Row("caching.originals", changes: [.source, .decode, .process]) { $0.caching.originals = ImageRequest.OriginalCaching(query: .none) },
        Row("caching.originals", .image, changes: [.image]) { $0.caching.originals = ImageRequest.OriginalCaching(query: .all) },
        // Limits guard the work, not what is made: a result in the cache is served whatever they say.
        Row("limits", changes: [.decode, .process]) { $0.limits = ImageLimits(maxPixels: 1000) },
        Row("maxSourceBytes", changes: [.source, .decode, .process]) { $0.maxSourceBytes = 1000 },
        Row("sourceConditions", changes: [.source, .decode, .process, .variant]) { $0.sourceConditions = SourceConditions(ifNoneMatch: "\"a\"") },
        // A download shared by requests retries as the one that started it says.
        Row("retryPolicy", changes: []) { $0.retryPolicy = RetryPolicy.never },
        Row("requestModifier", changes: [.source, .decode, .process]) { $0.requestModifier = { $0 } },
        Row("responseModifier", changes: [.source, .decode, .process]) { $0.responseModifier = { $0 } },
        Row("decryptor", changes: [.source, .decode, .process]) { $0.decryptor = { data, _ in data } },
        Row("loader", changes: [.source, .decode, .process]) { $0.loader = ImageLoadersManager(loaders: []) },
        Row("coder", changes: [.decode, .process]) { $0.coder = ImageCodersManager(coders: []) },
        Row("callbackExecutor", .image, changes: []) { $0.callbackExecutor = ImageCallbackExecutor { $0() } },
        // Each load bounds its own wait; the work it joined goes on for the others.
        Row("timeout", changes: []) { $0.timeout = .seconds(1) },
        Row("userInfo", changes: []) { $0.userInfo = ["tenant": "a"] },
    ]

    @Test("a change of each field changes the keys of the stages that make something else", arguments: rows)
    func fieldChangesItsStages(_ row: Row) {
        let base = Self.request(row.base)
        var changed = base
        row.change(&changed)
        let before = Self.keys(base, row.base)
        let after = Self.keys(changed, row.base)
        let differing = Set(Stage.allCases.filter { before[$0] != after[$0] })
        #expect(differing == row.changes, "\(row.field)")
    }

    @Test("every field of a request, of its processing and caching, and every flag has a row")
    func everyFieldHasARow() {
        let request = Self.request(.encoded)
        var fields = Set(Mirror(reflecting: request).children.compactMap(\.label))
        fields.remove("processing")
        fields.remove("caching")
        fields.remove("options")
        fields.formUnion(Mirror(reflecting: request.processing).children.compactMap(\.label).map { "processing." + $0 })
        fields.formUnion(Mirror(reflecting: request.caching).children.compactMap(\.label).map { "caching." + $0 })
        fields.formUnion(ImageRequest.Options.names.map { "options." + $0.1 })
        let covered = Set(Self.rows.map(\.field))
        #expect(fields.subtracting(covered).isEmpty, "fields without a row: \(fields.subtracting(covered).sorted())")
        #expect(covered.subtracting(fields).isEmpty, "rows naming no field: \(covered.subtracting(fields).sorted())")
    }

    @Test("an alternative source's attempt has keys of its own, cached under the primary's key unless it asks for its own")
    func alternativeAttemptsHaveKeysOfTheirOwn() {
        let mirror = URL(string: "https://mirror.example.com/a.jpg")!
        for base in [Base.image, .encoded] {
            var request = Self.request(base)
            request.alternativeSources = [.url(mirror)]
            let primary = ResolvedRequest(request, manager: Self.manager)
            let attempt = primary.trying(alternative: 0, cacheOnly: false, manager: Self.manager)
            #expect(attempt.url == Self.url && attempt.sourceURL == mirror)
            #expect(attempt.key == primary.key && attempt.originalKey == primary.originalKey, "cached under the primary's key")
            #expect(attempt.sourceStageKey != primary.sourceStageKey && attempt.decodeStageKey != primary.decodeStageKey)
            #expect(attempt.processStageKey != primary.processStageKey)
            switch base {
            case .image: #expect(attempt.imageStageKey != primary.imageStageKey)
            case .encoded: #expect(attempt.variantStageKey != primary.variantStageKey, "a making of the failing primary's does not answer it")
            }
            #expect(primary.variantStageKey == ResolvedRequest(Self.request(base), manager: Self.manager).variantStageKey)

            request.caching.cachesUnderAnsweringSource = true
            let own = ResolvedRequest(request, manager: Self.manager).trying(alternative: 0, cacheOnly: false, manager: Self.manager)
            #expect(own.originalKey == mirror.absoluteString && own.key != primary.key)
            let blocked = ResolvedRequest(request, manager: Self.manager).trying(alternative: nil, cacheOnly: true, manager: Self.manager)
            #expect(blocked.sourceStageKey != primary.sourceStageKey, "a blocked source's cache-only attempt shares no load")
        }
    }

    @Test("two requests that differ only in their output's quality share the decode and the transform, not the output")
    func qualityOnlyChangesTheOutput() {
        var low = Self.request(.encoded)
        low.output = .encoded(VariantEncoding(format: .fixed(.webp), quality: 40))
        var high = low
        high.output = .encoded(VariantEncoding(format: .fixed(.webp), quality: 90))
        let (a, b) = (ResolvedRequest(low, manager: Self.manager), ResolvedRequest(high, manager: Self.manager))
        #expect(a.processStageKey == b.processStageKey && a.decodeStageKey == b.decodeStageKey)
        #expect(a.variantStageKey != b.variantStageKey && a.key != b.key)
    }
}
