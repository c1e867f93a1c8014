import Foundation
import Synchronization
import Testing
@testable import WebImage
import WebImageTestSupport

@Suite("Shared work")
struct SharedWorkTests {
    typealias Work = SharedWork<Int, Int>

    @Test("subscribers complete exactly once, in join order; nobody joins ended work")
    func joinOrder() {
        let work = Work()
        let order = Recorder<String>()
        for name in ["a", "b", "c"] {
            _ = work.subscribe(progress: nil) { result in order.append("\(name)=\((try? result.get()) ?? -1)") }
        }
        work.finish(.success(7))
        work.finish(.success(8))
        #expect(order.values == ["a=7", "b=7", "c=7"])
        #expect(work.subscribe(progress: nil) { _ in } == nil)
        #expect(!work.isOpen && !work.isAbandoned)
    }

    @Test("one subscriber leaving completes it with cancelled at once; the last one out abandons the work")
    func lastOneOutAbandons() async {
        let work = Work()
        let outcomes = Recorder<String>()
        let a = work.subscribe(progress: nil) { outcomes.append("a:" + Self.describe($0)) }!
        let b = work.subscribe(progress: nil) { outcomes.append("b:" + Self.describe($0)) }!
        let abandoned = Recorder<Bool>()
        work.onAbandon { abandoned.append(true) }
        let task = Task<Void, Never> { try? await Task.sleep(for: .seconds(600)) }
        work.attach(task)
        work.unsubscribe(a)
        work.unsubscribe(a)
        #expect(outcomes.values == ["a:cancelled"])
        #expect(abandoned.count == 0 && !task.isCancelled)
        work.unsubscribe(b)
        #expect(outcomes.values == ["a:cancelled", "b:cancelled"])
        #expect(abandoned.count == 1 && task.isCancelled && work.isAbandoned)
        // Finishing abandoned work completes nobody twice; a handler added now runs at once.
        work.finish(.success(1))
        #expect(outcomes.count == 2)
        work.onAbandon { abandoned.append(true) }
        #expect(abandoned.count == 2)
        // A task attached after the abandonment is cancelled at once.
        let late = Task<Void, Never> { try? await Task.sleep(for: .seconds(600)) }
        #expect(work.attach(late) == false)
        #expect(late.isCancelled)
    }

    @Test("progress goes to each subscriber with a handler, throttled per subscriber, the last report always")
    func throttledProgress() {
        let work = Work(progressInterval: .seconds(3600))
        let a = Recorder<Int>()
        let b = Recorder<Int>()
        _ = work.subscribe(progress: { a.append($0) }) { _ in }
        _ = work.subscribe(progress: nil) { _ in }
        work.report(1, position: 1, isLast: false)
        _ = work.subscribe(progress: { b.append($0) }) { _ in }
        work.report(2, position: 2, isLast: false)
        work.report(3, position: 3, isLast: true)
        work.report(3, position: 3, isLast: true)
        work.finish(.success(0), finalProgress: { 3 }, finalPosition: 3)
        #expect(a.values == [1, 3], "throttled, the last report once")
        #expect(b.values == [2, 3])
    }

    @Test("a pool joins by key while work is open; abandoned or finished work leaves the pool")
    func poolJoinsByKey() async throws {
        let pool = SharedWorkPool<String, SharedWork<Int, Never>>()
        let made = Atomic<Int>(0)
        let first = pool.join("k", progress: nil, completion: { _ in }, make: { made.add(1, ordering: .relaxed); return SharedWork() })
        let second = pool.join("k", progress: nil, completion: { _ in }, make: { made.add(1, ordering: .relaxed); return SharedWork() })
        #expect(first.isNew && !second.isNew && first.holder === second.holder)
        #expect(made.load(ordering: .relaxed) == 1 && pool.count == 1)
        first.cancel()
        second.cancel()
        #expect(pool.count == 0, "abandoned work leaves the pool")
        let third = pool.join("k", progress: nil, completion: { _ in }, make: { SharedWork() })
        #expect(third.isNew && third.holder !== first.holder)
    }

    @Test("run: concurrent callers share one run; a caller's task cancelled leaves alone; the last one out cancels the work")
    func runSharesAndCancels() async throws {
        let pool = SharedWorkPool<String, SharedWork<Int, Never>>()
        let runs = Atomic<Int>(0)
        let gate = AsyncStream<Void>.makeStream()
        let work: @Sendable () async throws(ImageError) -> Int = { () async throws(ImageError) -> Int in
            runs.add(1, ordering: .relaxed)
            for await _ in gate.stream {}
            if Task.isCancelled { throw .cancelled }
            return 42
        }
        let callers = (0..<5).map { _ in Task { try await pool.run("k", work: work) } }
        #expect(await eventually { pool.all.first?.subscriberCount == 5 })
        callers[0].cancel()
        await #expect(throws: ImageError.cancelled) { try await callers[0].value }
        gate.continuation.finish()
        var joined = 0
        for caller in callers.dropFirst() {
            let (value, didJoin) = try await caller.value
            #expect(value == 42)
            if didJoin { joined += 1 }
        }
        // One of the five started it: one of the four that stayed, or the one that left.
        #expect(joined == 3 || joined == 4)
        #expect(runs.load(ordering: .relaxed) == 1)
        #expect(pool.count == 0)

        // Every caller gone: the work's task is cancelled.
        let cancelledRuns = Atomic<Int>(0)
        let stalled = Task {
            try await pool.run("s") { () throws(ImageError) -> Int in
                try? await Task.sleep(for: .seconds(600))
                if Task.isCancelled { cancelledRuns.add(1, ordering: .relaxed) }
                throw .cancelled
            }
        }
        #expect(await eventually { pool.count == 1 })
        stalled.cancel()
        await #expect(throws: ImageError.cancelled) { try await stalled.value }
        #expect(await eventually { cancelledRuns.load(ordering: .relaxed) == 1 })
    }

    static func describe(_ result: Result<Int, ImageError>) -> String {
        switch result {
        case .success(let value): "\(value)"
        case .failure(.cancelled): "cancelled"
        case .failure(let error): "\(error)"
        }
    }
}
