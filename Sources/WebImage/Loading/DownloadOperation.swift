import Foundation
import NIOCore
import Synchronization
import Tracing
import WebImageLocking

/// One transfer of one URL, queued or running: what the queue schedules and the transfer
/// reads. The callers that asked for the URL while it runs share it through its
/// ``SharedWork`` (each with its own progress and completion, each able to leave alone;
/// the last one out stops the transfer).
final class DownloadOperation: SharedWorkHolder {
    let url: URL
    /// The key the downloader coalesces callers under (``DownloadOptions/coalescingKey(for:)``).
    let key: String
    let options: DownloadOptions
    /// The queue position's priority: the highest of the callers waiting for the transfer
    /// (``SharedPriority``), which can change while it waits.
    var priority: SharedPriority { sharedWork.priority! }
    /// The host whose downloads a per-host limit counts together: the URL's, lower-cased.
    let host: String
    /// Set when the transfer ran past its whole-transfer deadline and was stopped for it.
    let deadlinePassed = Atomic<Bool>(false)
    /// Set once a progress report with body bytes went to a caller: from then on the
    /// transfer is not retried (``RetryPolicy``), except to resume its body (``ResumePolicy``).
    let bytesReachedCaller = Atomic<Bool>(false)
    /// When the transfer's steps happened, for its metrics.
    let timeline = InlineLocked(TransferTimeline())
    /// The timer of the whole-transfer deadline while the transfer runs.
    private let deadline = InlineLocked(DeadlineTimer.unarmed)

    private enum DeadlineTimer {
        case unarmed
        case armed(Scheduled<Void>)
        case ended
    }

    /// Keeps the timer of the transfer's deadline, to be cancelled when the transfer ends
    /// (at once, if it ended already).
    func arm(_ timer: Scheduled<Void>) {
        let ended = deadline.withLock { state -> Bool in
            guard case .unarmed = state else { return true }
            state = .armed(timer)
            return false
        }
        if ended { timer.cancel() }
    }

    /// The transfer ended: its deadline's timer is cancelled.
    func transferEnded() {
        let timer = deadline.withLock { state -> Scheduled<Void>? in
            defer { state = .ended }
            if case .armed(let timer) = state { return timer }
            return nil
        }
        timer?.cancel()
    }
    let sharedWork: SharedWork<DownloadResponse, DownloadProgress>
    /// The first caller's trace context (when a tracer is bootstrapped): the transfer runs
    /// in it, so the request's `traceparent` names the caller's span.
    let serviceContext: ServiceContext?

    init(url: URL, key: String, options: DownloadOptions, progressInterval: Duration) {
        self.url = url
        self.key = key
        self.options = options
        self.host = url.host?.lowercased() ?? ""
        self.sharedWork = SharedWork(progressInterval: progressInterval, priority: SharedPriority(nil))
        self.serviceContext = LibrarySpans.currentContext
    }

    /// Passes progress to the callers, throttled per caller (see ``SharedWork/report(_:position:isLast:)``);
    /// the bytes so far go along only when the options ask for them.
    func reportProgress(received: Int, expected: Int?, partialData: @autoclosure () -> Data?) {
        let isLast = expected.map { received >= $0 } ?? false
        let reported = sharedWork.report(
            DownloadProgress(receivedBytes: received, expectedBytes: expected, partialData: options.wantsPartialData ? partialData() : nil),
            position: received, isLast: isLast
        )
        if reported, received > 0 { bytesReachedCaller.store(true, ordering: .relaxed) }
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
