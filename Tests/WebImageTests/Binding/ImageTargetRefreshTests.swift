import Foundation
import Testing
import WebImage
import WebImageLocking
import WebImageTestSupport

/// ``ImageOptions/refreshCached`` on an image target: SDWebImage's
/// `sd_setImageWithURL:…options:SDWebImageRefreshCached` shows the cached image at once
/// (public repository SDWebImage/SDWebImage, `SDWebImageManager.m`'s refreshCached branch).
@Suite("ImageTarget refreshCached")
struct ImageTargetRefreshTests {
    @Test("refreshCached on an image target shows the cached image while the revalidation is held")
    func refreshCachedTargetShowsCachedImage() async throws {
        try await BindingFixtures.withManager { origin, manager in
            let gate = TestOriginGate()
            let first = Locked(true)
            origin.register("/t.png", handler: { _ in
                if first.withLock({ isFirst in defer { isFirst = false }; return isFirst }) { return .image(BindingFixtures.pngA, headers: [("ETag", "\"v1\"")]) }
                return .gated(gate, then: .notModified(headers: [("ETag", "\"v1\"")]))
            })
            let url = origin.url("/t.png")
            _ = try await manager.loadImage(from: url, options: .waitStoreCache)
            let target = RecordingTarget(manager: manager)
            let completions = Completions()
            target.setImage(with: url, placeholder: BindingFixtures.placeholder, options: [.refreshCached, .delayPlaceholder], completed: completions.handler)
            #expect(await gate.waitForArrivals(1))
            #expect(await eventually { target.shownSize == PixelSize(width: 40, height: 30) })
            #expect(target.applied.map(\.kind) == [.partial])
            gate.open()
            _ = await completions.final()
            #expect(target.applied.map(\.kind) == [.partial, .final])
            #expect(target.shownSize == PixelSize(width: 40, height: 30))
        }
    }

    @Test("a failed revalidation leaves the cached image on a target, not the delayed placeholder")
    func refreshCachedFailureKeepsCachedImageOnTarget() async throws {
        try await BindingFixtures.withManager { origin, manager in
            let first = Locked(true)
            origin.register("/f.png", handler: { _ in
                if first.withLock({ isFirst in defer { isFirst = false }; return isFirst }) { return .image(BindingFixtures.pngA, headers: [("ETag", "\"v1\"")]) }
                return .status(500)
            })
            let url = origin.url("/f.png")
            _ = try await manager.loadImage(from: url, options: .waitStoreCache)
            let target = RecordingTarget(manager: manager)
            let completions = Completions()
            target.setImage(with: url, placeholder: BindingFixtures.placeholder, options: [.refreshCached, .delayPlaceholder], completed: completions.handler)
            guard case .failure = await completions.final() else {
                Issue.record("the revalidation was answered with 500")
                return
            }
            #expect(target.applied.map(\.kind) == [.partial])
            #expect(target.shownSize == PixelSize(width: 40, height: 30))
        }
    }

}
