import Foundation

/// A running ``ImageManager`` load that can be cancelled (SDWebImageCombinedOperation's
/// counterpart).
///
/// Its completion runs with every intermediate result (`isFinal == false`) and exactly
/// once with the final result or error; cancelling completes it with
/// ``ImageError/cancelled`` at once, unless it already completed.
///
/// A handle, like `Task`: copies refer to the same load, and cancelling any of them
/// cancels it. A load that completed before it was returned (a memory hit) has a handle
/// with nothing behind it, so that it costs no allocation.
public struct ImageTask: Sendable {
    /// The URL being loaded.
    public let url: URL?
    /// The flags the load runs with.
    public let options: ImageRequest.Options

    /// Where the load stands in the download queue and the work slots while it waits,
    /// ``ImageRequest/priority`` at first. Setting it moves a load still waiting for its
    /// turn (a queued download, a slot): a load that scrolled into view can jump ahead of
    /// prefetching. Work that several loads share (a download, a decode) waits at the
    /// highest priority of the loads waiting for it, so a prefetch that a visible load
    /// joined is no longer behind other prefetches. A load that completed before it was
    /// returned keeps the priority it asked for.
    public var priority: DownloadPriority {
        get { sharedPriority?.base ?? requestedPriority }
        nonmutating set { sharedPriority?.setBase(newValue) }
    }

    /// The priority the load asked for.
    private let requestedPriority: DownloadPriority
    /// The load's priority, which the downloads and work it waits for follow; `nil` for a
    /// task that completed before it was returned.
    let sharedPriority: SharedPriority?

    /// The load as ``SharedWork`` with this caller as its subscriber (intermediate results
    /// are its progress); `nil` for a task that completed before it was returned.
    let work: SharedWork<ImageResult, ImageResult>?
    let subscriberID: Int

    /// A running load that completes through `completion`; `onEnd` runs when it finishes or
    /// is cancelled.
    init(
        url: URL?, options: ImageRequest.Options, priority: DownloadPriority,
        completion: @escaping @Sendable (Result<ImageResult, ImageError>) -> Void,
        onEnd: @escaping @Sendable (SharedWork<ImageResult, ImageResult>) -> Void
    ) {
        self.url = url
        self.options = options
        self.requestedPriority = priority
        self.sharedPriority = SharedPriority(priority)
        let work = SharedWork<ImageResult, ImageResult>()
        // A new work is open: the subscription always succeeds.
        subscriberID = work.subscribe(progress: { completion(.success($0)) }, completion: completion) ?? 0
        work.setOnEnd { [unowned work] in onEnd(work) }
        self.work = work
    }

    /// A task that completed before it was returned (a memory hit): nothing to cancel.
    init(completedLoadOf url: URL?, options: ImageRequest.Options, priority: DownloadPriority = .normal) {
        self.url = url
        self.options = options
        self.requestedPriority = priority
        self.sharedPriority = nil
        self.work = nil
        self.subscriberID = 0
    }

    /// Whether ``cancel()`` was called before the load completed.
    public var isCancelled: Bool { work?.isAbandoned ?? false }

    /// Whether the final completion has run.
    public var isFinished: Bool { !(work?.isOpen ?? false) }

    /// Cancels the load: the completion runs with `cancelled` now, and the download, if
    /// this was its last caller, stops.
    public func cancel() {
        work?.unsubscribe(subscriberID)
    }

    /// Attaches the Swift task running the load (cancelled with the load).
    func attach(_ task: Task<Void, Never>) {
        guard let work else {
            task.cancel()
            return
        }
        work.attach(task)
    }

    /// Delivers a result; a final one (or any failure) ends the task.
    func deliver(_ result: Result<ImageResult, ImageError>) {
        guard let work else { return }
        if case .success(let value) = result, !value.isFinal {
            work.deliver(value)
            return
        }
        work.finish(result)
    }
}
