import Foundation
import Tracing

/// One transfer of one URL, queued or running: what the queue schedules and the transfer
/// reads. The callers that asked for the URL while it runs share it through its
/// ``SharedWork`` (each with its own progress and completion, each able to leave alone;
/// the last one out stops the transfer).
final class DownloadOperation: SharedWorkHolder {
    let url: URL
    /// The key the downloader coalesces callers under (``DownloadOptions/coalescingKey(for:)``).
    let key: String
    let options: DownloadOptions
    /// The queue position's priority: the first caller's.
    let priority: DownloadPriority
    let sharedWork: SharedWork<DownloadResponse, DownloadProgress>
    /// The first caller's trace context (when a tracer is bootstrapped): the transfer runs
    /// in it, so the request's `traceparent` names the caller's span.
    let serviceContext: ServiceContext?

    init(url: URL, key: String, options: DownloadOptions, progressInterval: Duration) {
        self.url = url
        self.key = key
        self.options = options
        self.priority = options.priority
        self.sharedWork = SharedWork(progressInterval: progressInterval)
        self.serviceContext = LibrarySpans.currentContext
    }

    /// Passes progress to the callers, throttled per caller (see ``SharedWork/report(_:position:isLast:)``);
    /// the bytes so far go along only when the options ask for them.
    func reportProgress(received: Int, expected: Int?, partialData: @autoclosure () -> Data?) {
        let isLast = expected.map { received >= $0 } ?? false
        sharedWork.report(
            DownloadProgress(receivedBytes: received, expectedBytes: expected, partialData: options.wantsPartialData ? partialData() : nil),
            position: received, isLast: isLast
        )
    }

    /// Completes every caller with `result`, after a last progress report of the full body
    /// to callers that have not seen it.
    func finish(_ result: Result<DownloadResponse, ImageError>) {
        guard case .success(let response) = result else {
            sharedWork.finish(result)
            return
        }
        let total = response.data.count
        let wantsData = options.wantsPartialData
        sharedWork.finish(result, finalProgress: {
            DownloadProgress(receivedBytes: total, expectedBytes: total, partialData: wantsData ? response.data : nil)
        }, finalPosition: total)
    }
}
