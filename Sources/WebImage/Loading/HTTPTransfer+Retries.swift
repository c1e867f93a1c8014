import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

extension HTTPTransfer {
    /// What one attempt of a transfer did, as far as a retry depends on it.
    struct Attempt {
        /// Whether every request the attempt sent was a `GET`.
        var onlyGET = true
        /// The final response's head (after the response modifier), once it arrived.
        var head: DownloadResponseHead?
        /// Whether the attempt failed in the network in a way another try may mend
        /// (``isTransportFailure(_:)``, or a body cut short).
        var transportFailure = false
        /// Whether the source answered a request for the rest of a body with a range that
        /// does not continue it: the retry starts over (``ResumePolicy``).
        var rangeRefused = false
    }

    /// Runs attempts of the transfer until one succeeds or fails in a way the retry policy
    /// does not retry, waiting between them on ``DownloaderConfig/retryClock``. Every
    /// attempt and every wait ends by the one whole-transfer deadline. A retry after a
    /// drop that left a body to resume (``ResumePolicy``) asks for the rest of it.
    func attempts(started: inout Bool) async throws(ImageError) -> DownloadResponse {
        let policy = options.retryPolicy ?? config.retryPolicy
        let deadline = NIODeadline.now() + environment.totalTimeout
        var retries = 0
        var resumption = Resumption()
        while true {
            var attempt = Attempt()
            let failure: ImageError
            // An error response handed back for the caller to read (`returnsErrorResponses`)
            // is retried like one that fails; the last one goes back as the server sent it.
            var errorResponse: DownloadResponse?
            do throws(ImageError) {
                let response = try await followHops(started: &started, attempt: &attempt, resumption: &resumption, deadline: deadline)
                let status = response.head.statusCode
                if config.acceptableStatusCodes.contains(status) { return response }
                errorResponse = response
                failure = .invalidStatusCode(status)
            } catch {
                failure = error
            }
            // A retry that asks for the rest of the body, or starts over after a range the
            // source refused, may follow bytes that reached a caller.
            let continuesBody = resumption.held != nil || attempt.rangeRefused
            guard retries < policy.maxRetries,
                  let delay = delay(
                      beforeRetry: retries + 1, after: failure, attempt: attempt, continuesBody: continuesBody, policy: policy,
                      deadline: deadline
                  )
            else {
                if let errorResponse { return errorResponse }
                throw failure
            }
            retries += 1
            operation.timeline.withLock { $0.retries = retries }
            environment.events.emit(.retrying(url: operation.url, retry: retries, delay: delay, reason: failure))
            try await wait(delay)
            if let held = resumption.held {
                environment.events.emit(.resuming(url: operation.url, fromByte: held.count))
            }
        }
    }

    /// The wait before retry `retry` after an attempt that failed with `failure`, or `nil`
    /// when it is not retried: not every request was a `GET`, body bytes reached a caller
    /// (unless the retry `continuesBody`: it resumes the body, or starts over after a range
    /// the source refused), the failure is not one the policy retries, its `Retry-After`
    /// asks for longer than ``RetryPolicy/maxRetryAfter``, or the wait would end past `deadline`.
    private func delay(
        beforeRetry retry: Int, after failure: ImageError, attempt: Attempt, continuesBody: Bool, policy: RetryPolicy,
        deadline: NIODeadline
    ) -> Duration? {
        guard attempt.onlyGET, continuesBody || !operation.bytesReachedCaller.load(ordering: .relaxed) else { return nil }
        let delay: Duration
        switch failure {
        case .invalidStatusCode(let status):
            guard policy.retryableStatusCodes.contains(status), let head = attempt.head, head.statusCode == status else { return nil }
            if let asked = RetryAfter.delay(in: head.headers, now: Date()) {
                guard asked <= policy.maxRetryAfter else { return nil }
                delay = asked
            } else {
                delay = policy.delay(beforeRetry: retry)
            }
        default:
            guard attempt.rangeRefused || (policy.retriesTransportFailures && attempt.transportFailure) else { return nil }
            delay = policy.delay(beforeRetry: retry)
        }
        // A wait that ends past the deadline could only end in a timeout.
        let remaining = Duration.nanoseconds((deadline - NIODeadline.now()).nanoseconds)
        return delay < remaining ? delay : nil
    }

    /// Waits `delay` on the retry clock; a cancelled load stops waiting at once.
    private func wait(_ delay: Duration) async throws(ImageError) {
        do {
            try await config.retryClock.sleep(for: delay)
        } catch {
            throw .cancelled
        }
        if Task.isCancelled { throw .cancelled }
    }

    /// Whether a client or channel error is one another try may mend: a connection that
    /// could not be made (refused, unreachable, timed out; not a host name that did not
    /// resolve), a read that timed out, a connection reset or closed by the server, also in
    /// the middle of a response.
    static func isTransportFailure(_ error: any Error) -> Bool {
        switch error {
        case let error as HTTPClientError:
            switch error {
            case .readTimeout, .connectTimeout, .tlsHandshakeTimeout, .getConnectionFromPoolTimeout, .remoteConnectionClosed:
                return true
            default:
                return false
            }
        case let error as NIOConnectionError:
            return !error.connectionErrors.isEmpty
        case let error as IOError:
            return [ECONNRESET, ECONNREFUSED, ECONNABORTED, EPIPE, ETIMEDOUT, ENETUNREACH, EHOSTUNREACH, ENETDOWN].contains(error.errnoCode)
        case let error as HTTPParserError:
            // The connection ended in the middle of the response.
            if case .invalidEOFState = error { return true }
            return false
        case let error as ChannelError:
            switch error {
            case .connectTimeout, .eof, .ioOnClosedChannel, .outputClosed, .inputClosed: return true
            default: return false
            }
        default:
            return false
        }
    }
}
