import Foundation
import WebImage
import WebImageLocking
import WebImageTestSupport

/// An image target that records every image put on it.
final class RecordingTarget: ImageTarget {
    struct Applied: Sendable, Equatable {
        var kind: ImageTargetUpdate.Kind
        var size: PixelSize?
        var url: URL?
        var operationKey: String
        /// The target's current URL for the key, read inside `apply`.
        var currentURL: URL? = nil
    }

    let imageManager: ImageManager
    private let log = Locked<[Applied]>([])

    init(manager: ImageManager) { imageManager = manager }

    func apply(_ image: Image?, update: ImageTargetUpdate) {
        // Reading the binding state inside `apply` is allowed (and must not deadlock).
        let current = currentImageURL(forOperationKey: update.operationKey)
        log.withLock {
            $0.append(Applied(kind: update.kind, size: image?.pixelSize, url: update.url, operationKey: update.operationKey, currentURL: current))
        }
    }

    /// Everything applied, in order.
    var applied: [Applied] { log.withLock { $0 } }
    /// The size of the image shown now (`nil`: nothing, or a `nil` image).
    var shownSize: PixelSize? { applied.last?.size }
}

/// Collects a `setImage` call's results and lets a test await them without polling.
final class Completions: Sendable {
    typealias Outcome = Result<ImageResult, ImageError>
    private let stream: AsyncStream<Outcome>
    private let continuation: AsyncStream<Outcome>.Continuation
    private let received = Locked<[Outcome]>([])

    init() {
        (stream, continuation) = AsyncStream<Outcome>.makeStream()
    }

    /// The `completed` closure to pass to `setImage`.
    var handler: @Sendable (Outcome) -> Void {
        { [received, continuation] outcome in
            received.withLock { $0.append(outcome) }
            continuation.yield(outcome)
            if case .success(let value) = outcome, !value.isFinal { return }
            continuation.finish()
        }
    }

    /// Results received so far.
    var results: [Outcome] { received.withLock { $0 } }

    /// Waits for the final result (the stream ends after it).
    func final() async -> Outcome? {
        var last: Outcome?
        for await outcome in stream { last = outcome }
        return last
    }

    static func isCancelled(_ outcome: Outcome?) -> Bool {
        if case .failure(.cancelled) = outcome { return true }
        return false
    }

    static func size(_ outcome: Outcome?) -> PixelSize? {
        if case .success(let value) = outcome { return value.image?.pixelSize }
        return nil
    }
}

enum BindingFixtures {
    static let sizeA = PixelSize(width: 40, height: 30)
    static let sizeB = PixelSize(width: 20, height: 10)
    static let placeholderSize = PixelSize(width: 4, height: 4)
    static let pngA: Data = try! TestImages.encode(try! TestImages.quadrants(width: 40, height: 30), as: .png)
    static let pngB: Data = try! TestImages.encode(try! TestImages.quadrants(width: 20, height: 10), as: .png)
    static let placeholder: Image = try! TestImages.quadrants(width: 4, height: 4)

    /// Runs `body` with a fresh origin, downloader, cache and manager.
    static func withManager(
        downloader configure: (inout DownloaderConfig) -> Void = { _ in },
        _ body: (TestOrigin, ImageManager) async throws -> Void
    ) async throws {
        try await withOriginAndDownloader(configure: configure) { origin, downloader in
            let manager = ImageManager(cache: TestCaches.make(), loader: ImageLoaders([downloader, FileLoader(), DataURLLoader()]))
            defer { try? FileManager.default.removeItem(atPath: manager.imageCache.config.rootDirectory) }
            try await body(origin, manager)
        }
    }
}
