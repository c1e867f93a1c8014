import Foundation
import Testing
@testable import WebImage
import WebImageTestSupport

@Suite("ImageTarget: setImage with an ImageRequest")
struct ImageTargetRequestTests {
    typealias F = BindingFixtures

    @Test("a request's processing is what the target shows, under the request's URL")
    func requestIsLoaded() async throws {
        try await F.withManager { origin, manager in
            let gate = TestOriginGate()
            origin.register("/a.png", .gated(gate, then: .image(F.pngA)))
            let url = origin.url("/a.png")
            let target = RecordingTarget(manager: manager)
            let done = Completions()
            let request = ImageRequest(url: url, processing: ImageProcessing(thumbnailPixelSize: PixelSize(width: 8, height: 8)))
            let task = target.setImage(request, placeholder: F.placeholder, completed: done.handler)
            #expect(task.url == url)
            #expect(target.applied == [.init(kind: .placeholder, size: F.placeholderSize, url: url, operationKey: "image", currentURL: url)])
            #expect(target.isLoadingImage())
            gate.open()
            #expect(Completions.size(await done.final()) == PixelSize(width: 8, height: 6))
            #expect(target.applied.map(\.kind) == [.placeholder, .final])
            #expect(target.shownSize == PixelSize(width: 8, height: 6))
            #expect(target.currentImageURL == url)
            #expect(target.currentProgress == 1)

            // The same request again is a memory hit, applied before setImage returns; no callbacks needed.
            target.setImage(request)
            #expect(target.applied.last?.kind == .final)
            #expect(target.shownSize == PixelSize(width: 8, height: 6))
            #expect(origin.requestCount("/a.png") == 1)
        }
    }

    @Test("with a callback executor, the placeholder, the image and the completions all run on it, none before setImage returns")
    func callbackExecutor() async throws {
        try await F.withManager { origin, manager in
            origin.register("/a.png", .image(F.pngA))
            let marked = MarkedQueue()
            let target = QueueCheckingTarget(manager: manager, queue: marked)
            var request = ImageRequest(url: origin.url("/a.png"))
            request.callbackExecutor = .dispatchQueue(marked.queue)
            let completed = Recorder<Bool>()
            // The queue is held until setImage returned, so that nothing can run on it before.
            marked.queue.suspend()
            target.setImage(request, placeholder: F.placeholder) { _ in completed.append(marked.isCurrent) }
            #expect(target.applied.count == 0 && completed.count == 0, "nothing applied or completed before setImage returned")
            marked.queue.resume()
            #expect(await completed.wait(for: 1))
            #expect(await target.applied.wait(for: 2))
            #expect(target.applied.values.map(\.0) == [.placeholder, .final])
            #expect(target.applied.values.allSatisfy { $0.1 }, "every apply ran on the queue")
            #expect(completed.values == [true])

            // A memory hit goes through the executor as well.
            let hit = Recorder<Bool>()
            target.setImage(request, placeholder: F.placeholder) { _ in hit.append(marked.isCurrent) }
            #expect(await hit.wait(for: 1))
            #expect(hit.values == [true])
            #expect(await target.applied.wait(for: 4))
            #expect(target.applied.values.allSatisfy { $0.1 })
            #expect(origin.requestCount("/a.png") == 1)
        }
    }

    @Test("target options: an operation key of its own runs beside the default one; a load that cancels no previous one never overwrites it")
    func operationKeysAndCancelling() async throws {
        try await F.withManager { origin, manager in
            let gate = TestOriginGate()
            origin.register("/a.png", .gated(gate, then: .image(F.pngA)))
            origin.register("/b.png", .image(F.pngB))
            let target = RecordingTarget(manager: manager)
            let first = Completions(), highlighted = Completions()
            target.setImage(ImageRequest(url: origin.url("/a.png")), completed: first.handler)
            #expect(await gate.waitForArrivals(1))
            target.setImage(ImageRequest(url: origin.url("/b.png")), options: ImageTargetOptions(operationKey: "highlighted"), completed: highlighted.handler)
            #expect(Completions.size(await highlighted.final()) == F.sizeB)
            #expect(first.results.isEmpty, "another key's load left the first running")
            #expect(target.currentImageURL(forOperationKey: "highlighted") == origin.url("/b.png"))
            #expect(target.applied.last?.operationKey == "highlighted")

            // Under the default key, without cancelling: the first still completes but is never applied.
            let second = Completions()
            target.setImage(ImageRequest(url: origin.url("/b.png")), options: ImageTargetOptions(cancelsPreviousLoad: false), completed: second.handler)
            #expect(Completions.size(second.results.first) == F.sizeB, "a memory hit")
            gate.open()
            #expect(Completions.size(await first.final()) == F.sizeA, "the first load completes with its image")
            #expect(!target.applied.contains { $0.size == F.sizeA }, "but it is never applied")
            #expect(origin.abortedCount("/a.png") == 0)
        }
    }

    @Test("target options: the placeholder on failure only, and images left off the object")
    func placeholderTimingAndAppliesImages() async throws {
        try await F.withManager { origin, manager in
            origin.register("/a.png", .image(F.pngA))
            origin.register("/gone.png", .status(404))
            let target = RecordingTarget(manager: manager)
            let onFailure = ImageTargetOptions(placeholderTiming: .onFailure)
            let success = Completions()
            target.setImage(ImageRequest(url: origin.url("/a.png")), placeholder: F.placeholder, options: onFailure, completed: success.handler)
            #expect(Completions.size(await success.final()) == F.sizeA)
            #expect(target.applied.map(\.kind) == [.final], "no placeholder on success")
            let failure = Completions()
            target.setImage(ImageRequest(url: origin.url("/gone.png")), placeholder: F.placeholder, options: onFailure, completed: failure.handler)
            if case .failure(.invalidStatusCode(404)) = await failure.final() {} else { Issue.record("expected a 404") }
            #expect(target.applied.map(\.kind) == [.final, .placeholder])

            let untouched = Completions()
            target.setImage(
                ImageRequest(url: origin.url("/a.png")), placeholder: F.placeholder, options: ImageTargetOptions(appliesImages: false),
                completed: untouched.handler
            )
            #expect(Completions.size(untouched.results.first) == F.sizeA, "completed with the image")
            #expect(target.applied.map(\.kind) == [.final, .placeholder, .placeholder], "the placeholder shows, the image is not applied")
        }
    }

    @Test("SDWebImage's target options and operation key are the target options")
    func sdWebImageTranslation() {
        #expect(ImageTargetOptions([], context: nil) == ImageTargetOptions())
        var context = ImageContext()
        context.operationKey = "highlighted"
        let translated = ImageTargetOptions([.avoidAutoCancelImage, .delayPlaceholder, .avoidAutoSetImage, .refreshCached], context: context)
        #expect(translated == ImageTargetOptions(operationKey: "highlighted", cancelsPreviousLoad: false, placeholderTiming: .onFailure, appliesImages: false))
    }

    @Test("a URL whose options make no request shows the delayed placeholder and completes with the error as a failed load")
    func sdWebImageRequestNotMade() async throws {
        try await F.withManager { origin, _ in
            origin.register("/a.png", .image(F.pngA))
            let manager = ImageManager(cache: TestCaches.make(), optionsProcessor: { _, _, _ in nil })
            defer { try? FileManager.default.removeItem(atPath: manager.imageCache.config.rootDirectory) }
            let target = RecordingTarget(manager: manager)
            let done = Completions()
            let task = target.setImage(with: origin.url("/a.png"), placeholder: F.placeholder, options: .delayPlaceholder, completed: done.handler)
            #expect(task != nil && task?.isFinished == true, "a failed load, finished before setImage returned")
            if case .failure(.invalidDownloadOperation) = done.results.first {} else { Issue.record("expected the processor's cancellation: \(done.results)") }
            #expect(target.applied.map(\.kind) == [.placeholder])
            #expect(!target.isLoadingImage())
            #expect(origin.totalRequestCount == 0)
        }
    }
}
