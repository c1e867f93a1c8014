import Foundation

/// One of a request's ``ImageRequest/alternativeSources`` being tried, after the sources
/// before it failed: where it is in the list, the URL the load is reported under, and the
/// key it is cached under. A class, so that a ``ResolvedRequest`` of a request's own source
/// holds one `nil` reference and no more.
final class SourceAttempt: Sendable {
    /// Where an attempt's result is cached.
    enum Keying: Sendable {
        /// Under the primary source's key (`nil`: the primary's key filter does not cache it).
        case primary(originalKey: String?)
        /// Under the alternative's own key (``ImageRequest/Caching/cachesUnderAnsweringSource``).
        case own
    }

    /// The alternative's index in ``ImageRequest/alternativeSources``.
    let index: Int
    /// The URL results and events are reported under: the primary source's.
    let reportedURL: URL
    /// The alternative's URL (``ImageSource/url``): its failures are recorded under it, and
    /// a success with ``ImageRequest/Options/retryFailed`` unblocks it.
    let sourceURL: URL
    let keying: Keying

    init(index: Int, reportedURL: URL, sourceURL: URL, keying: Keying) {
        self.index = index
        self.reportedURL = reportedURL
        self.sourceURL = sourceURL
        self.keying = keying
    }

    /// Whether the attempt is cached under the alternative's own key, which the attempt
    /// looks up first, memory included.
    var cachesUnderOwnKey: Bool {
        if case .own = keying { return true }
        return false
    }
}

extension ResolvedRequest {
    /// This request with the source of the alternative at `index` (`nil`: its own source),
    /// only read from the cache when `cacheOnly` (the source is blocked).
    func trying(alternative index: Int?, cacheOnly: Bool, manager: ImageManager) -> ResolvedRequest {
        guard index != nil || cacheOnly else { return self }
        var changed = request
        var attempt: SourceAttempt?
        if let index {
            changed.source = request.alternativeSources[index]
            changed.alternativeSources = []
            attempt = SourceAttempt(
                index: index, reportedURL: url, sourceURL: changed.source.url,
                keying: request.caching.cachesUnderAnsweringSource ? .own : .primary(originalKey: originalKey)
            )
        }
        if cacheOnly { changed.options.insert(.fromCacheOnly) }
        return ResolvedRequest(changed, manager: manager, revalidating: revalidating, attempt: attempt)
    }
}

extension ImagePipeline {
    /// `body` with the request's own source and, while each source fails in a way another
    /// copy of the image may mend (``ImageError/triesAlternativeSource``), with each of its
    /// ``ImageRequest/alternativeSources`` in turn; returned with the index of the
    /// alternative that answered (`nil`: its own source). A request without alternatives
    /// runs `body` once, as it is.
    ///
    /// A source blocked in ``failedURLs`` (unless the request retries failed URLs) is not
    /// loaded: its attempt only reads the cache, and is skipped when that cache is the
    /// primary's, which the first attempt read. An alternative's answer kept under the
    /// primary's key unblocks the primary: loads of its URL are answered from that key
    /// now, and asking it again is for when the entry is gone. When every source fails, the
    /// primary's error is thrown. Each failure is reported as
    /// ``ImageEvent/sourceFailed(url:source:reason:next:)``.
    func tryingSources<T: Sendable>(
        _ request: ResolvedRequest, manager: ImageManager, _ body: (ResolvedRequest) async throws(ImageError) -> T
    ) async throws(ImageError) -> (value: T, alternative: Int?) {
        let alternatives = request.request.alternativeSources
        if alternatives.isEmpty { return (try await body(request), nil) }
        let options = request.request.options
        let ownKeys = request.request.caching.cachesUnderAnsweringSource
        var primaryError: ImageError?
        for index in -1..<alternatives.count {
            let alternative = index < 0 ? nil : index
            if alternative != nil, Task.isCancelled { throw .cancelled }
            let sourceURL = alternative.map { alternatives[$0].url } ?? request.url
            let blocked = !options.contains(.retryFailed) && failedURLs.isBlocked(sourceURL)
            let cacheOnly = blocked || options.contains(.fromCacheOnly)
            var error: ImageError
            if alternative != nil, cacheOnly, !ownKeys {
                // Its cache is the primary's, read by the first attempt: nothing to try.
                error = blocked ? .blockedURL(sourceURL) : .notInCache(request.key ?? request.url.absoluteString)
            } else {
                let attempt = request.trying(alternative: alternative, cacheOnly: blocked, manager: manager)
                do throws(ImageError) {
                    let value = try await body(attempt)
                    if alternative != nil, !ownKeys, request.key != nil, request.resultStore != .none { failedURLs.remove(request.url) }
                    return (value, alternative)
                } catch let failure {
                    error = failure
                }
                if blocked, case .notInCache = error { error = .blockedURL(sourceURL) }
            }
            guard error.triesAlternativeSource || (cacheOnly && error.isNotInCache) else { throw error }
            if primaryError == nil { primaryError = error }
            if events.hasObservers {
                let next = index + 1 < alternatives.count ? alternatives[index + 1].url : nil
                events.emit(.sourceFailed(url: request.url, source: sourceURL, reason: error, next: next))
            }
        }
        throw primaryError ?? .cancelled
    }
}

extension ImageError {
    /// Whether a load that failed with this error goes on with the request's next
    /// alternative source: the source could not be had (a status, a URL no loader handles,
    /// a refused or blocked source, a timeout, the network, credentials) or its bytes are
    /// not a usable image. Not after a cancellation, a `304` (an answer), a request the
    /// manager refuses, or a failure of what is asked of the image (its transform, its
    /// encoding, the memory budget), which another copy of the image would meet alike.
    var triesAlternativeSource: Bool {
        switch self {
        case .invalidURL, .badImageData, .imageTooLarge, .untrustedFormat, .blockedURL, .timedOut, .invalidStatusCode,
             .invalidContentType, .invalidResponse, .invalidDownloadOperation, .bodyTooLarge, .network, .forbiddenSource,
             .notFound, .accessDenied, .credentialsUnavailable:
            return true
        case .cancelled, .cacheNotModified, .notInCache, .overloaded, .invalidRequest, .encodingFailed, .fileSizeLimitUnreachable,
             .invalidTransform, .memoryBudgetExceeded, .cacheFailure:
            return false
        }
    }

    /// Whether this is ``ImageError/notInCache(_:)``.
    var isNotInCache: Bool {
        if case .notInCache = self { return true }
        return false
    }
}
