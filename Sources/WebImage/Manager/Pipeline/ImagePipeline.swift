import Foundation
import NIOPosix
import WebImageLocking

/// The stages every ``ImageManager`` request goes through, each keyed by what it makes:
///
///     source bytes ── decoded image ── processed image ── image result / encoded output
///     (cache or loader)  (+ decode plan)   (+ transformer)    (+ where it is kept)
///
/// Decoded images, encoded outputs, details, ThumbHashes, prefetches and image targets
/// all go through the same stages, so every request that needs the same thing at once
/// shares one download, one decode and one transform, and no stage is written twice. The
/// caller that starts work drives the stages below it itself: a result made from a cached
/// source is read, decoded, processed, encoded and written in one visit to a coding thread.
final class ImagePipeline: Sendable {
    /// Source bytes, from the cache or the loader.
    let sources = PipelineStage<SourceStageKey, SourceData>()
    /// Decoded images, by source and decode plan.
    let decodes = PipelineStage<DecodeStageKey, DecodedImage>()
    /// Processed images, by decoded image and transformer.
    let processed = PipelineStage<ProcessStageKey, ProcessedImage>()
    /// Identical image loads running at once: one result, stored once.
    let images = SharedWorkPool<ImageStageKey, SharedWork<ImageResult, ImageLoadEvent>>()
    /// Identical encoded outputs asked for at once: one making, stored once.
    let variants = SharedWorkPool<VariantStageKey, SharedWork<VariantResult, Never>>()

    /// URLs blocked after permanent failures.
    let failedURLs: FailedURLs
    /// Decides which failures block their URL.
    let shouldBlockFailedURL: ImageManager.FailedURLRule
    /// Told of every encoded output made.
    let events: ImageEvents
    /// The slots encoded outputs are made in; `nil`: no limit beyond the coding pool.
    let limiter: WorkLimiter?
    /// How long work nobody waits for may go on in the background.
    let backgroundDeadline: Duration
    /// The encodes making one encoded output may run.
    let maxEncodesPerOutput: Int
    /// The sources (by cache and key) being revalidated in the background while their
    /// stale bytes are served: one revalidation each at a time.
    let backgroundRevalidations = Locked<Set<BackgroundRevalidation>>([])

    /// A source revalidated in the background.
    struct BackgroundRevalidation: Hashable, Sendable {
        let cache: InstanceIdentity
        let key: String
    }

    init(
        failedURLs: FailedURLs, shouldBlockFailedURL: @escaping ImageManager.FailedURLRule, events: ImageEvents, limiter: WorkLimiter?,
        backgroundDeadline: Duration, maxEncodesPerOutput: Int
    ) {
        self.maxEncodesPerOutput = maxEncodesPerOutput
        self.failedURLs = failedURLs
        self.shouldBlockFailedURL = shouldBlockFailedURL
        self.events = events
        self.limiter = limiter
        self.backgroundDeadline = backgroundDeadline
    }

    /// Whether `request` goes on after its last caller left, and until when: the
    /// background deadline of its shared work, which reports its expiry.
    func background(of request: ResolvedRequest) -> (keepRunning: Bool, deadline: BackgroundDeadline?) {
        guard request.request.options.contains(.continueInBackground) else { return (false, nil) }
        let (events, url, duration) = (events, request.url, backgroundDeadline)
        return (true, BackgroundDeadline(duration: duration) { events.emit(.backgroundWorkExpired(url: url, deadline: duration)) })
    }

    /// Blocks `url` after loading it failed with `error`, when the rule says so. A
    /// cancellation and a 304 are no failures of the URL: they never block.
    func recordFailure(_ url: URL, _ error: ImageError) {
        if error == .cancelled || error == .cacheNotModified { return }
        if shouldBlockFailedURL(url, error) { failedURLs.block(url) }
    }

    /// The tail of every made result: the disk write its coding thread left (`write`, run
    /// after the result is handed out, awaited first with
    /// ``ImageRequest/Options/waitStoreCache``), and the URL of the source that answered
    /// unblocked for ``ImageRequest/Options/retryFailed``.
    func finish(_ request: ResolvedRequest, writing write: (@Sendable () async -> Void)?) async {
        if let write {
            let task = Task { await write() }
            if request.request.options.contains(.waitStoreCache) { await task.value }
        }
        if request.request.options.contains(.retryFailed) { failedURLs.remove(request.sourceURL) }
    }

    /// Works in flight in every stage, for tests that check that nothing is left behind.
    var inFlightCount: Int {
        sources.count + decodes.count + processed.count + images.count + variants.count
    }
}

/// What an image load reports before its result: download progress and, for a
/// progressive load, previews of the bytes so far.
enum ImageLoadEvent: Sendable {
    case progress(DownloadProgress)
    case preview(Image)
}
