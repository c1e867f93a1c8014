import Foundation
import Testing
@testable import WebImage
import WebImageTestSupport

@Suite("ImageTarget state")
struct ImageTargetStateTests {
    typealias F = BindingFixtures

    final class Object: ImageTarget {
        func apply(_ image: Image?, update: ImageTargetUpdate) {}
    }

    @Test("T1 currentProgress follows the latest load: partial while the origin holds the rest, 1 at the end")
    func T1_progress() async throws {
        try await F.withManager(downloader: { $0.minimumProgressInterval = .zero }) { origin, manager in
            let gate = TestOriginGate()
            let half = F.pngA.count / 2
            origin.register("/a.png", TestOriginResponse.image(F.pngA).pausing(afterBodyBytes: half, until: gate))
            let target = RecordingTarget(manager: manager)
            let (reports, continuation) = AsyncStream<DownloadProgress>.makeStream()
            let done = Completions()
            target.setImage(with: origin.url("/a.png"), progress: { continuation.yield($0) }, completed: done.handler)
            for await report in reports where report.receivedBytes >= half { break }
            let partial = target.currentProgress
            #expect(partial == Double(half) / Double(F.pngA.count), "\(partial)")
            gate.open()
            #expect(Completions.size(await done.final()) == F.sizeA)
            #expect(target.currentProgress == 1)
        }
    }

    @Test("T1 a load whose target is gone is cancelled at its next progress report and applies nothing")
    func T1_targetGone() async throws {
        try await F.withManager(downloader: { $0.minimumProgressInterval = .zero }) { origin, manager in
            let gate = TestOriginGate()
            origin.register("/a.png", TestOriginResponse.image(F.pngA).pausing(afterBodyBytes: 0, until: gate))
            var target: RecordingTarget? = RecordingTarget(manager: manager)
            let done = Completions()
            target?.setImage(with: origin.url("/a.png"), completed: done.handler)
            #expect(await gate.waitForArrivals(1))
            weak let gone = target
            target = nil
            #expect(gone == nil)
            gate.open()
            #expect(Completions.isCancelled(await done.final()))
        }
    }

    @Test("T1 the side table holds objects weakly, drops dead entries, and never hands a dead object's state to a new one")
    func T1_sideTable() {
        let states = ImageTargetStates()
        let kept = Object()
        let keptState = states.state(for: kept)
        for index in 0..<1_000 {
            let object = Object()
            let state = states.state(for: object)
            #expect(state.url(key: "image") == nil, "a fresh state, even at a reused address")
            _ = state.begin(ImageTargetOperation(url: URL(string: "http://h/\(index).png")), key: "image")
            #expect(states.state(for: object) === state)
        }
        #expect(states.count <= 128, "dead entries are swept: \(states.count)")
        #expect(states.state(for: kept) === keptState)
        #expect(states.liveCount == 1)
        #expect(states.existingState(for: Object()) == nil, "reading never creates an entry")
    }

    @Test("T1 many targets loading and superseding concurrently: every load completes once, each target shows its latest image")
    func T1_concurrentTargets() async throws {
        try await F.withManager { origin, manager in
            origin.register("/a.png", .image(F.pngA))
            origin.register("/b.png", .image(F.pngB))
            let targets = (0..<20).map { _ in RecordingTarget(manager: manager) }
            let completions = Recorder<Bool>()
            await withTaskGroup(of: Void.self) { group in
                for target in targets {
                    group.addTask {
                        let first = Completions(), second = Completions()
                        target.setImage(with: origin.url("/a.png"), options: .fromLoaderOnly, completed: first.handler)
                        target.setImage(with: origin.url("/b.png"), options: .fromLoaderOnly, completed: second.handler)
                        _ = await first.final()
                        let latest = await second.final()
                        completions.append(first.results.count == 1 && Completions.size(latest) == F.sizeB)
                    }
                }
            }
            #expect(completions.values.count == targets.count)
            #expect(completions.values.allSatisfy { $0 })
            for target in targets {
                #expect(target.shownSize == F.sizeB)
                #expect(target.currentImageURL == origin.url("/b.png"))
            }
        }
    }
}
