import Foundation
import Testing
@testable import WebImage
import WebImageTestSupport

@Suite("ImageTarget")
struct ImageTargetTests {
    typealias F = BindingFixtures

    @Test("T1 a second setImage cancels the first, which completes with cancelled and never shows")
    func T1_secondSetImageCancelsFirst() async throws {
        try await F.withManager { origin, manager in
            let gate = TestOriginGate()
            origin.register("/a.png", .gated(gate, then: .image(F.pngA)))
            origin.register("/b.png", .image(F.pngB))
            let target = RecordingTarget(manager: manager)
            let first = Completions(), second = Completions()
            let firstTask = target.setImage(with: origin.url("/a.png"), completed: first.handler)
            #expect(await gate.waitForArrivals(1), "the first load reached the origin")
            #expect(target.isLoadingImage())

            target.setImage(with: origin.url("/b.png"), completed: second.handler)
            #expect(Completions.isCancelled(first.results.first), "cancelled before the second call returned")
            #expect(firstTask?.isCancelled == true)
            #expect(Completions.size(await second.final()) == F.sizeB)
            #expect(await first.final() != nil)
            #expect(first.results.count == 1, "the first completes exactly once")
            #expect(target.shownSize == F.sizeB)
            #expect(!target.applied.contains { $0.size == F.sizeA })
            #expect(await origin.waitForAbort("/a.png"), "the cancelled transfer stopped")
            #expect(target.currentImageURL == origin.url("/b.png"))
            #expect(!target.isLoadingImage())
            gate.open()
        }
    }

    @Test("T1 avoidAutoCancelImage keeps both loads; the older one completes but never overwrites the newer image")
    func T1_avoidAutoCancelKeepsBoth() async throws {
        try await F.withManager { origin, manager in
            let gate = TestOriginGate()
            origin.register("/a.png", .gated(gate, then: .image(F.pngA)))
            origin.register("/b.png", .image(F.pngB))
            let target = RecordingTarget(manager: manager)
            let first = Completions(), second = Completions()
            target.setImage(with: origin.url("/a.png"), completed: first.handler)
            #expect(await gate.waitForArrivals(1))
            target.setImage(with: origin.url("/b.png"), options: .avoidAutoCancelImage, completed: second.handler)
            #expect(Completions.size(await second.final()) == F.sizeB)
            #expect(first.results.isEmpty, "the first load still runs")

            gate.open()
            #expect(Completions.size(await first.final()) == F.sizeA, "the first load completes with its image")
            #expect(target.shownSize == F.sizeB, "but the out-of-date image is never applied")
            #expect(target.applied.filter { $0.kind == .final }.map(\.size) == [F.sizeB])
            #expect(origin.requestCount("/a.png") == 1)
            #expect(origin.abortedCount("/a.png") == 0)
        }
    }

    @Test("T1 loads under different operation keys or on different targets do not cancel each other; cancelCurrentImageLoad cancels one key")
    func T1_operationKeys() async throws {
        try await F.withManager { origin, manager in
            let gate = TestOriginGate()
            origin.register("/a.png", .gated(gate, then: .image(F.pngA)))
            origin.register("/b.png", .gated(gate, then: .image(F.pngB)))
            let target = RecordingTarget(manager: manager), other = RecordingTarget(manager: manager)
            var backgroundContext = ImageContext()
            backgroundContext.operationKey = "background"
            let main = Completions(), background = Completions(), elsewhere = Completions()
            target.setImage(with: origin.url("/a.png"), completed: main.handler)
            target.setImage(with: origin.url("/b.png"), context: backgroundContext, completed: background.handler)
            other.setImage(with: origin.url("/a.png"), completed: elsewhere.handler)
            #expect(main.results.isEmpty && background.results.isEmpty && elsewhere.results.isEmpty)
            #expect(target.currentImageURL == origin.url("/a.png"))
            #expect(target.currentImageURL(forOperationKey: "background") == origin.url("/b.png"))
            #expect(await gate.waitForArrivals(2), "one transfer per URL")

            target.cancelCurrentImageLoad(operationKey: "background")
            #expect(Completions.isCancelled(background.results.first))
            #expect(!target.isLoadingImage(operationKey: "background"))
            #expect(target.isLoadingImage())
            target.cancelCurrentImageLoad(operationKey: "background")
            #expect(background.results.count == 1, "a second cancel does nothing")

            gate.open()
            #expect(Completions.size(await main.final()) == F.sizeA)
            #expect(Completions.size(await elsewhere.final()) == F.sizeA)
            #expect(target.applied.allSatisfy { $0.operationKey == ImageTargetUpdate.defaultOperationKey || $0.kind == .placeholder })
            #expect(target.applied.filter { $0.kind == .final }.map(\.size) == [F.sizeA])
            #expect(other.shownSize == F.sizeA)
            #expect(target.currentProgress == 1)
            #expect(target.currentProgress(forOperationKey: "background") == 0)
        }
    }

    @Test("T2 the placeholder is applied before setImage returns, then the image")
    func T2_placeholderFirst() async throws {
        try await F.withManager { origin, manager in
            let gate = TestOriginGate()
            origin.register("/a.png", .gated(gate, then: .image(F.pngA)))
            let target = RecordingTarget(manager: manager)
            let done = Completions()
            let url = origin.url("/a.png")
            target.setImage(with: url, placeholder: F.placeholder, completed: done.handler)
            #expect(target.applied == [.init(kind: .placeholder, size: F.placeholderSize, url: url, operationKey: "image", currentURL: url)])
            #expect(target.currentImageURL == url)
            #expect(target.currentProgress == 0)
            gate.open()
            #expect(Completions.size(await done.final()) == F.sizeA)
            #expect(target.applied.map(\.kind) == [.placeholder, .final])
            #expect(target.applied.allSatisfy { $0.currentURL == url }, "apply may read the current URL")
            #expect(target.shownSize == F.sizeA)
            #expect(target.currentProgress == 1)

            // A memory hit is applied before setImage returns, after the placeholder.
            let hit = Completions()
            target.setImage(with: url, placeholder: F.placeholder, completed: hit.handler)
            #expect(target.applied.suffix(2).map(\.kind) == [.placeholder, .final])
            #expect(target.shownSize == F.sizeA)
            if case .success(let value) = hit.results.first { #expect(value.cacheType == .memory) } else { Issue.record("no memory hit") }
            #expect(origin.requestCount("/a.png") == 1)
        }
    }

    @Test("a ThumbHash decoded to an image is the placeholder shown while the image loads")
    func thumbHashPlaceholder() async throws {
        try await F.withManager { origin, manager in
            let gate = TestOriginGate()
            origin.register("/a.png", .gated(gate, then: .image(F.pngA)))
            // The hash as a page would have it: from an earlier request (here another URL of the same image).
            origin.register("/hash-source.png", .image(F.pngA))
            let hash = try await manager.loadThumbHash(for: origin.url("/hash-source.png"))
            let placeholder = try hash.image()
            let target = RecordingTarget(manager: manager)
            let done = Completions()
            target.setImage(with: origin.url("/a.png"), placeholder: placeholder, completed: done.handler)
            #expect(target.applied.first?.kind == .placeholder && target.applied.first?.size == placeholder.pixelSize)
            gate.open()
            #expect(Completions.size(await done.final()) == F.sizeA)
            #expect(target.applied.map(\.kind) == [.placeholder, .final])
        }
    }

    @Test("T2 delayPlaceholder shows the placeholder only when the load fails")
    func T2_delayPlaceholder() async throws {
        try await F.withManager { origin, manager in
            let gate = TestOriginGate()
            origin.register("/a.png", .gated(gate, then: .image(F.pngA)))
            origin.register("/gone.png", .status(404))
            let target = RecordingTarget(manager: manager)
            let success = Completions()
            target.setImage(with: origin.url("/a.png"), placeholder: F.placeholder, options: .delayPlaceholder, completed: success.handler)
            #expect(target.applied.isEmpty, "nothing before the load ends")
            gate.open()
            #expect(Completions.size(await success.final()) == F.sizeA)
            #expect(target.applied.map(\.kind) == [.final], "no placeholder on success")

            let failure = Completions()
            target.setImage(with: origin.url("/gone.png"), placeholder: F.placeholder, options: .delayPlaceholder, completed: failure.handler)
            #expect(target.applied.count == 1)
            let outcome = await failure.final()
            if case .failure(.invalidStatusCode(404)) = outcome {} else { Issue.record("expected a 404 failure, got \(String(describing: outcome))") }
            #expect(target.applied.map(\.kind) == [.final, .placeholder])
            #expect(target.shownSize == F.placeholderSize)
            #expect(target.currentProgress == 0)
        }
    }

    @Test("T2 delayPlaceholder: a cancelled load shows no placeholder")
    func T2_delayPlaceholderNotOnCancel() async throws {
        try await F.withManager { origin, manager in
            origin.register("/stall.png", .stall)
            let target = RecordingTarget(manager: manager)
            let done = Completions()
            target.setImage(with: origin.url("/stall.png"), placeholder: F.placeholder, options: .delayPlaceholder, completed: done.handler)
            #expect(await origin.waitForRequests("/stall.png"))
            target.cancelCurrentImageLoad()
            #expect(Completions.isCancelled(await done.final()))
            #expect(target.applied.isEmpty)
        }
    }

    @Test("T2 avoidAutoSetImage completes with the image but leaves the target untouched")
    func T2_avoidAutoSetImage() async throws {
        try await F.withManager { origin, manager in
            origin.register("/a.png", .image(F.pngA))
            let target = RecordingTarget(manager: manager)
            let done = Completions()
            target.setImage(with: origin.url("/a.png"), options: [.avoidAutoSetImage, .delayPlaceholder], completed: done.handler)
            #expect(Completions.size(await done.final()) == F.sizeA)
            #expect(target.applied.isEmpty)
            #expect(target.currentImageURL == origin.url("/a.png"))
            #expect(target.currentProgress == 1)

            // The placeholder is still applied at the start (as SDWebImage does), the image is not.
            let again = Completions()
            target.setImage(with: origin.url("/a.png"), placeholder: F.placeholder, options: .avoidAutoSetImage, completed: again.handler)
            #expect(Completions.size(again.results.first) == F.sizeA, "a memory hit, completed at once")
            #expect(target.applied.map(\.kind) == [.placeholder])
        }
    }

    @Test("T2 a nil URL applies the placeholder and completes with invalidURL at once")
    func T2_nilURL() async throws {
        try await F.withManager { origin, manager in
            let target = RecordingTarget(manager: manager)
            let done = Completions()
            let task = target.setImage(with: nil, placeholder: F.placeholder, completed: done.handler)
            #expect(task == nil)
            #expect(done.results.count == 1)
            if case .failure(.invalidURL) = done.results.first {} else { Issue.record("expected invalidURL") }
            #expect(target.applied.map(\.kind) == [.placeholder])
            #expect(target.currentImageURL == nil)

            let delayed = Completions()
            target.setImage(with: nil, placeholder: F.placeholder, options: .delayPlaceholder, completed: delayed.handler)
            #expect(delayed.results.count == 1)
            #expect(target.applied.map(\.kind) == [.placeholder, .placeholder], "a nil URL is a failure: the delayed placeholder shows")
            #expect(origin.totalRequestCount == 0)
        }
    }

    @Test("T2 a nil URL cancels the running load like any other setImage")
    func T2_nilURLCancelsRunningLoad() async throws {
        try await F.withManager { origin, manager in
            origin.register("/stall.png", .stall)
            let target = RecordingTarget(manager: manager)
            let first = Completions()
            target.setImage(with: origin.url("/stall.png"), completed: first.handler)
            target.setImage(with: nil, placeholder: F.placeholder)
            #expect(Completions.isCancelled(first.results.first))
            #expect(target.shownSize == F.placeholderSize)
            #expect(!target.isLoadingImage())
        }
    }
}
