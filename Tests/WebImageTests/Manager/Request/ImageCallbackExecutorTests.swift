import Dispatch
import Foundation
import Testing
@testable import WebImage
import WebImageLocking
import WebImageTestSupport

/// A serial queue that can tell whether the current code runs on it.
final class MarkedQueue: Sendable {
    private static let key = DispatchSpecificKey<String>()
    let name = "executor-\(UUID().uuidString)"
    let queue: DispatchQueue

    init() {
        queue = DispatchQueue(label: name)
        queue.setSpecific(key: Self.key, value: name)
    }

    /// Whether the calling code runs on this queue.
    var isCurrent: Bool { DispatchQueue.getSpecific(key: Self.key) == name }
}

/// A task executor whose jobs run on a marked serial queue.
final class QueueTaskExecutor: TaskExecutor {
    let marked = MarkedQueue()

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        marked.queue.async { job.runSynchronously(on: executor) }
    }
}

/// A target that records, for each image put on it, whether it ran on `queue`.
final class QueueCheckingTarget: ImageTarget {
    let imageManager: ImageManager
    let queue: MarkedQueue
    let applied = Recorder<(ImageTargetUpdate.Kind, Bool)>()

    init(manager: ImageManager, queue: MarkedQueue) {
        imageManager = manager
        self.queue = queue
    }

    func apply(_ image: Image?, update: ImageTargetUpdate) {
        applied.append((update.kind, queue.isCurrent))
    }
}

@Suite("ImageCallbackExecutor: where completions run")
struct ImageCallbackExecutorTests {
    static let url = URL(string: "http://fields.test/still.jpg")!

    static func manager(defaultContext: ImageContext = ImageContext()) -> ImageManager {
        let loader = RecordingLoader()
        loader.serve("/still.jpg", RequestFieldHarness.still)
        return ImageManager(cache: TestCaches.make(), loader: loader, defaultContext: defaultContext)
    }

    /// Loads `url` through the callback API and returns, for each completion, whether it
    /// ran on `queue`, and whether it ran before `loadImage` returned (meaningful when it
    /// ran on the caller's thread: a completion on a queue may run at any time).
    static func completions(
        _ manager: ImageManager, url: URL = url, context: ImageContext?, on queue: MarkedQueue
    ) async -> [(onQueue: Bool, beforeReturn: Bool, result: Result<ImageResult, ImageError>)] {
        let returned = InlineLocked(false)
        let seen = Recorder<(onQueue: Bool, beforeReturn: Bool, result: Result<ImageResult, ImageError>)>()
        manager.loadImage(with: url, context: context) { result in
            seen.append((queue.isCurrent, !returned.withLock { $0 }, result))
        }
        returned.withLock { $0 = true }
        _ = await seen.wait(for: 1)
        return seen.values
    }

    @Test("a load, a memory hit and a failure all complete on the chosen queue")
    func dispatchQueue() async throws {
        let manager = Self.manager()
        defer { try? FileManager.default.removeItem(atPath: manager.imageCache.config.rootDirectory) }
        let marked = MarkedQueue()
        var context = ImageContext()
        context.callbackExecutor = .dispatchQueue(marked.queue)

        let load = await Self.completions(manager, context: context, on: marked)
        #expect(load.count == 1 && load[0].onQueue)
        #expect(try load[0].result.get().cacheType == CacheType.none)
        let hit = await Self.completions(manager, context: context, on: marked)
        #expect(hit.count == 1 && hit[0].onQueue)
        #expect(try hit[0].result.get().cacheType == .memory)
        let failure = await Self.completions(manager, url: URL(string: "http://fields.test/missing.jpg")!, context: context, on: marked)
        #expect(failure.count == 1 && failure[0].onQueue)
        #expect(throws: ImageError.invalidStatusCode(404)) { try failure[0].result.get() }
        // Without an executor a memory hit completes at once, on the caller's thread.
        let plain = await Self.completions(manager, context: nil, on: marked)
        #expect(plain.count == 1 && !plain[0].onQueue && plain[0].beforeReturn)
    }

    @Test("with an executor, a memory hit completes only when the executor runs it")
    func memoryHitWaitsForTheExecutor() async throws {
        let manager = Self.manager()
        defer { try? FileManager.default.removeItem(atPath: manager.imageCache.config.rootDirectory) }
        _ = try await manager.loadImage(from: Self.url)
        let held = InlineLocked<[@Sendable () -> Void]>([])
        var context = ImageContext()
        context.callbackExecutor = ImageCallbackExecutor { work in held.withLock { $0.append(work) } }
        let completed = Recorder<CacheType?>()
        manager.loadImage(with: Self.url, context: context) { completed.append(try? $0.get().cacheType) }
        #expect(completed.count == 0, "nothing ran before the executor did")
        let work = held.withLock { $0 }
        #expect(work.count == 1)
        for item in work { item() }
        #expect(completed.values == [.memory])
    }

    @Test("the manager's default context names the executor for every load without a context")
    func defaultContextExecutor() async throws {
        let marked = MarkedQueue()
        var defaults = ImageContext()
        defaults.callbackExecutor = .dispatchQueue(marked.queue)
        let manager = Self.manager(defaultContext: defaults)
        defer { try? FileManager.default.removeItem(atPath: manager.imageCache.config.rootDirectory) }
        for _ in 0..<2 {
            let seen = await Self.completions(manager, context: nil, on: marked)
            #expect(seen.count == 1 && seen[0].onQueue)
        }
    }

    @Test("a task executor runs the completions")
    func taskExecutor() async throws {
        let manager = Self.manager()
        defer { try? FileManager.default.removeItem(atPath: manager.imageCache.config.rootDirectory) }
        let executor = QueueTaskExecutor()
        var context = ImageContext()
        context.callbackExecutor = .taskExecutor(executor)
        let seen = await Self.completions(manager, context: context, on: executor.marked)
        #expect(seen.count == 1 && seen[0].onQueue)
    }

    @Test("an image target is handed the placeholder and the image on the executor; so are its completions")
    func imageTarget() async throws {
        let manager = Self.manager()
        defer { try? FileManager.default.removeItem(atPath: manager.imageCache.config.rootDirectory) }
        let marked = MarkedQueue()
        var context = ImageContext()
        context.callbackExecutor = .dispatchQueue(marked.queue)
        let target = QueueCheckingTarget(manager: manager, queue: marked)
        let placeholder = try TestImages.quadrants(width: 2, height: 2)
        let completed = Recorder<Bool>()
        target.setImage(with: Self.url, placeholder: placeholder, context: context) { _ in completed.append(marked.isCurrent) }
        #expect(await completed.wait(for: 1))
        #expect(await target.applied.wait(for: 2))
        #expect(target.applied.values.map(\.0) == [.placeholder, .final])
        #expect(target.applied.values.allSatisfy { $0.1 }, "every apply ran on the queue")
        #expect(completed.values == [true])

        // A memory hit, and a nil URL, go through the executor too.
        let hitCompleted = Recorder<Bool>()
        target.setImage(with: Self.url, context: context) { _ in hitCompleted.append(marked.isCurrent) }
        #expect(await hitCompleted.wait(for: 1))
        #expect(hitCompleted.values == [true])
        let nilCompleted = Recorder<Bool>()
        target.setImage(with: nil, context: context) { _ in nilCompleted.append(marked.isCurrent) }
        #expect(await nilCompleted.wait(for: 1))
        #expect(nilCompleted.values == [true])
        #expect(await target.applied.wait(for: 5))
        #expect(target.applied.values.allSatisfy { $0.1 })
    }

    @Test("a serial executor gets a load's results in order: the cached image, then the refreshed one")
    func order() async throws {
        let manager = Self.manager()
        defer { try? FileManager.default.removeItem(atPath: manager.imageCache.config.rootDirectory) }
        _ = try await manager.loadImage(from: Self.url)
        let marked = MarkedQueue()
        var context = ImageContext()
        context.callbackExecutor = .dispatchQueue(marked.queue)
        let finals = Recorder<Bool>()
        manager.loadImage(with: Self.url, options: .refreshCached, context: context) { result in
            finals.append((try? result.get())?.isFinal ?? true)
        }
        #expect(await finals.wait(for: 2))
        #expect(finals.values == [false, true])
    }
}
