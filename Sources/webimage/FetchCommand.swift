import ArgumentParser
import Foundation
import WebImage
import WebImageLocking

/// `webimage fetch URL…`: loads images through the cache and writes them to files.
struct FetchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fetch",
        abstract: "Fetch images through the cache and write them to files.",
        discussion: """
            Each image is loaded through the cache (memory, then disk, then the network) and \
            stored in it. One line per image on standard output: the URL, where it came from \
            (downloaded, disk or memory), the format and dimensions written, the bytes \
            written, the time taken and the file. A failed image gets one line on standard \
            error naming the URL and the reason, and the exit status is 1. With --json, \
            each image is one JSON object on its own line (JSON Lines) with the keys url, \
            ok, cacheType (none, memory, disk), format, width, height, bytes, milliseconds, \
            output, source when an --alternative answered, and error for a failure. With \
            '-o -', the lines go to standard error.

            With --alternative (one URL only), the alternatives are tried in order when the \
            URL fails for good (a 404, not an image, after the retries of a 5xx or a \
            timeout…); the image is cached under the URL, so the next run is a cache hit. A \
            URL that failed permanently in an earlier run is not asked again, but its cache \
            is still read and its alternatives tried.
            """
    )

    @Argument(help: ArgumentHelp("The images' URLs (http, https, file or data).", valueName: "url"))
    var urls: [String]

    @Option(
        name: .customLong("alternative"),
        help: ArgumentHelp(
            "Another URL of the image, tried when the URL fails for good; repeat it for more, tried in order (one URL only).",
            valueName: "url"
        )
    )
    var alternatives: [String] = []

    @Option(
        name: [.short, .customLong("output")],
        help: ArgumentHelp("The directory the images are written to, or '-' for standard output (one URL only).", valueName: "dir|-")
    )
    var output = "."

    @Option(
        help: ArgumentHelp("Decode as a thumbnail within this box, keeping the aspect ratio (shrink-on-load).", valueName: "WxH"),
        transform: Arguments.size
    )
    var thumbnail: PixelSize?

    @Option(
        help: ArgumentHelp(
            "Resize to a box: fit (inside it), fill (cover it, cropping the overflow), fill-down (fill, never enlarging) or force (exactly, ignoring the aspect ratio).",
            valueName: "mode:WxH"
        ),
        transform: Arguments.resize
    )
    var resize: ResizeTransformer?

    @Option(
        help: ArgumentHelp("Write the images in this format (default: as downloaded): \(OutputFormats.names).", valueName: "format"),
        transform: Arguments.outputFormat
    )
    var format: ImageFormat?

    @Option(help: ArgumentHelp("Quality 1–100 for lossy formats (jpeg, webp, avif) when re-encoding.", valueName: "n"))
    var quality = 80

    @Flag(help: "With --thumbnail, --resize or --format: keep the source's colour profile with its pixels instead of converting them to sRGB (the default, as a browser shows them).")
    var keepColorProfile = false

    @Flag(help: "Neither read nor write the cache: always download.")
    var noCache = false

    @Flag(help: "Revalidate cached images with the server (If-None-Match / If-Modified-Since).")
    var refresh = false

    @Flag(help: "Try URLs that failed permanently in an earlier run (they are otherwise refused for 10 minutes).")
    var retryFailed = false

    @Flag(help: "Print one JSON object per image (JSON Lines) instead of text.")
    var json = false

    @OptionGroup var cache: CacheLocationOptions
    @OptionGroup var network: NetworkOptions

    func validate() throws {
        guard !urls.isEmpty else { throw ValidationError("no URL given: pass one or more image URLs") }
        for url in urls + alternatives { _ = try Arguments.url(url) }
        if !alternatives.isEmpty, urls.count > 1 {
            throw ValidationError(
                "--alternative names other URLs of one image, but \(urls.count) URLs were given: pass one URL, or run fetch once per image"
            )
        }
        try Arguments.check(quality, in: 1...100, option: "quality")
        if output == "-", urls.count > 1 {
            throw ValidationError("'-o -' writes one image to standard output, but \(urls.count) URLs were given: pass one URL or an output directory")
        }
        if noCache, refresh {
            throw ValidationError("--refresh revalidates the cached copy, which --no-cache skips: drop one of them")
        }
    }

    func run() async throws {
        let targets = try urls.map { text throws(ValidationError) in try Arguments.url(text) }
        let settings = try self.settings
        var writer: ImageWriter?
        if output != "-" {
            writer = try ImageWriter(directory: output)
        }
        let config = cache.cacheConfig()
        let failures = FailedURLFile(rootDirectory: config.rootDirectory)
        let progress = ProgressRenderer.standardError()
        progress.update { $0.total = targets.count }
        let records = try await Pipeline.with(config, downloader: try network.downloaderConfig()) { pipeline in
            await Self.fetchAll(targets, settings: settings, pipeline: pipeline, writer: writer, failures: failures, progress: progress)
        }
        progress.finish()
        failures.save()
        if records.contains(where: { !$0.ok }) { throw ExitCode.failure }
    }

    // MARK: Loading

    /// What one image's fetch needs from the command line, in a form tasks can share.
    struct Settings: Sendable {
        var format: ImageFormat?
        var thumbnail: PixelSize?
        var resize: ResizeTransformer?
        var quality: Int
        var keepColorProfile: Bool
        var noCache: Bool
        var refresh: Bool
        var retryFailed: Bool
        var json: Bool
        var toStandardOutput: Bool
        /// `--alternative`: other URLs of the image, tried in order.
        var alternatives: [URL] = []

        /// Whether the written image is not the downloaded file: thumbnailed, resized or re-encoded.
        var changesImage: Bool { format != nil || thumbnail != nil || resize != nil }

        /// The flags of every load: the store awaited, a revalidation with `--refresh`, a
        /// blocked URL tried with `--retry-failed`.
        var requestOptions: ImageRequest.Options {
            var options: ImageRequest.Options = [.waitStoreCache]
            if refresh { options.insert(.refreshCached) }
            if retryFailed { options.insert(.retryFailed) }
            return options
        }

        /// The request of the decoded image `url` is written from.
        func imageRequest(for url: URL) -> ImageRequest {
            var request = ImageRequest(url: url, options: requestOptions)
            request.alternativeSources = alternatives.map { .url($0) }
            // A URL given twice is a memory hit the second time: queryMemoryData still brings
            // the bytes from disk, so both files are the same download.
            request.options.insert(.queryMemoryData)
            request.processing.thumbnailPixelSize = thumbnail
            if let resize {
                request.processing.transformer = resize
                // An animated source is handed out as decoded, its frames not resized.
                request.processing.transformsAnimations = false
            }
            if noCache {
                request.caching.query = .none
                request.caching.store = .none
                // A thumbnail or a resize has a source of its own, cached apart.
                if !request.processing.isIdentity { request.caching.originals = ImageRequest.OriginalCaching(query: .none, store: .none) }
            }
            return request
        }

        /// The request of the encoded image `url` is written as when `--keep-color-profile`
        /// keeps the source's colour profile: decoded in its own colour space, thumbnailed
        /// and resized there, and encoded in `--format` (else the source's) with its profile.
        func profileKeepingRequest(for url: URL) -> ImageRequest {
            var encoding = VariantEncoding(format: format.map { .fixed($0) } ?? .matchingSource, quality: quality)
            encoding.options.colorProfile = .source
            var request = ImageRequest(
                url: url, processing: ImageProcessing(thumbnailPixelSize: thumbnail, transformer: resize), output: .encoded(encoding),
                options: requestOptions
            )
            request.alternativeSources = alternatives.map { .url($0) }
            if noCache {
                request.caching = ImageRequest.Caching(query: .none, store: .none, originals: ImageRequest.OriginalCaching(query: .none, store: .none))
            }
            return request
        }
    }

    private var settings: Settings {
        get throws(ValidationError) {
            Settings(
                format: format, thumbnail: thumbnail, resize: resize, quality: quality, keepColorProfile: keepColorProfile, noCache: noCache,
                refresh: refresh, retryFailed: retryFailed, json: json, toStandardOutput: output == "-",
                alternatives: try alternatives.map { text throws(ValidationError) in try Arguments.url(text) }
            )
        }
    }

    /// Fetches every URL, a few at a time, printing each record in the order of the URLs.
    private static func fetchAll(
        _ targets: [URL], settings: Settings, pipeline: Pipeline, writer: ImageWriter?, failures: FailedURLFile, progress: ProgressRenderer
    ) async -> [FetchRecord] {
        let printer = OrderedPrinter(count: targets.count) { record in
            progress.aside { Self.print(record, settings: settings) }
        }
        let received = ReceivedBytes()
        await withTaskGroup(of: Void.self) { group in
            var next = 0
            func startNext() {
                guard next < targets.count else { return }
                let index = next
                next += 1
                group.addTask {
                    let record = await Self.fetch(targets[index], settings: settings, pipeline: pipeline, writer: writer, failures: failures) { bytes in
                        let total = received.set(bytes, for: index)
                        progress.update { $0.bytes = total }
                    }
                    progress.update { snapshot in
                        snapshot.finished += 1
                        if !record.ok { snapshot.failed += 1 }
                    }
                    printer.deliver(record, at: index)
                }
            }
            // As many at once as the downloader runs.
            for _ in 0..<pipeline.downloader.maxConcurrentDownloads { startNext() }
            while await group.next() != nil { startNext() }
        }
        return printer.records
    }

    /// Fetches one URL and writes its image.
    private static func fetch(
        _ url: URL, settings: Settings, pipeline: Pipeline, writer: ImageWriter?, failures: FailedURLFile, progress: @escaping @Sendable (Int) -> Void
    ) async -> FetchRecord {
        let start = ContinuousClock.now
        var blockedSources: Set<URL> = []
        if !settings.retryFailed {
            if let blocked = failures.blocked(url), settings.alternatives.isEmpty {
                let ago = Formatting.age(Date().timeIntervalSince(blocked.date))
                return FetchRecord(
                    url: url, elapsed: ContinuousClock.now - start,
                    error: "failed permanently \(ago) ago (\(blocked.reason)); pass --retry-failed to try it again"
                )
            }
            // The library does not ask a blocked source again, but reads the cache under the
            // URL's key and goes on with the alternatives.
            for source in [url] + settings.alternatives where failures.blocked(source) != nil {
                blockedSources.insert(source)
                pipeline.manager.failedURLs.block(source)
            }
        }
        let sourceFailures = SourceFailures(url: url, events: settings.alternatives.isEmpty ? nil : pipeline.manager.events)
        defer { sourceFailures.stop() }
        var loaded = false
        // Records a load's outcome once it is in, before the image is written.
        func recordLoad(alternative: Int?) {
            loaded = true
            let answering = alternative.map { settings.alternatives[$0] } ?? url
            // As in the library: an alternative's answer cached under the URL's key unblocks
            // the URL, whose loads are cache hits now.
            let unblocksURL = alternative != nil && !settings.noCache
            for (source, error) in sourceFailures.values where !(unblocksURL && source == url) { failures.record(source, error: error) }
            if unblocksURL { failures.record(url, error: nil) }
            // A cache hit under the URL's key says nothing of a blocked URL.
            if !blockedSources.contains(answering) { failures.record(answering, error: nil) }
        }
        do {
            let answer: FetchAnswer
            if settings.keepColorProfile, settings.changesImage {
                answer = try await fetchKeepingProfile(url, settings: settings, pipeline: pipeline, writer: writer, loaded: recordLoad)
            } else {
                answer = try await fetchImage(url, settings: settings, pipeline: pipeline, writer: writer, progress: progress, loaded: recordLoad)
            }
            var record = answer.record
            record.milliseconds = Formatting.milliseconds(ContinuousClock.now - start)
            record.source = answer.alternative.map { settings.alternatives[$0].absoluteString }
            return record
        } catch {
            let imageError = error as? ImageError
            var reason = imageError.map(describe) ?? String(describing: error)
            if settings.alternatives.isEmpty || loaded {
                if let imageError { failures.record(url, error: imageError) }
            } else {
                let failed = sourceFailures.values
                for (source, error) in failed { failures.record(source, error: error) }
                for (source, error) in failed where source != url { reason += "; alternative \(source.absoluteString): \(describe(error))" }
            }
            return FetchRecord(url: url, elapsed: ContinuousClock.now - start, error: reason)
        }
    }

    /// What a failure says on the command line: a blocked source names the run that
    /// blocked it and the flag that asks it again.
    private static func describe(_ error: ImageError) -> String {
        guard case .blockedURL(let url) = error else { return error.description }
        return "\(url.absoluteString) failed permanently in an earlier run and is blocked; pass --retry-failed to try it again"
    }

    /// A written image's record, and the index of the alternative that answered (`nil`: the URL).
    private struct FetchAnswer {
        var record: FetchRecord
        var alternative: Int?
    }

    /// Fetches one URL as a decoded image and writes it, calling `loaded` with the index of
    /// the alternative that answered once the load is in.
    private static func fetchImage(
        _ url: URL, settings: Settings, pipeline: Pipeline, writer: ImageWriter?, progress: @escaping @Sendable (Int) -> Void,
        loaded: (Int?) -> Void
    ) async throws -> FetchAnswer {
        let result = try await pipeline.manager.loadImage(settings.imageRequest(for: url)) { report in
            progress(report.receivedBytes)
        }
        loaded(result.alternativeSourceIndex)
        guard let image = result.image else { throw ImageError.badImageData("the load returned no image") }
        let (data, writtenFormat) = try await outputBytes(image: image, downloaded: result.data, settings: settings)
        var path: String?
        if let writer {
            path = try writer.write(data, for: url, format: writtenFormat)
        } else {
            Console.outData(data)
        }
        let record = FetchRecord(
            url: url, cacheType: result.cacheType, format: writtenFormat, size: image.pixelSize, bytes: data.count, elapsed: .zero, output: path
        )
        return FetchAnswer(record: record, alternative: result.alternativeSourceIndex)
    }

    /// Fetches one URL as an encoded variant that keeps the source's colour profile: the
    /// source is decoded in its own colour space, resized there, and written with its
    /// profile. `loaded` is called as by ``fetchImage(_:settings:pipeline:writer:progress:loaded:)``.
    private static func fetchKeepingProfile(
        _ url: URL, settings: Settings, pipeline: Pipeline, writer: ImageWriter?, loaded: (Int?) -> Void
    ) async throws(ImageError) -> FetchAnswer {
        let result = try await pipeline.manager.loadVariant(settings.profileKeepingRequest(for: url))
        loaded(result.alternativeSourceIndex)
        let variant = result.variant
        var path: String?
        if let writer {
            path = try writer.write(variant.data, for: url, format: variant.format)
        } else {
            Console.outData(variant.data)
        }
        let record = FetchRecord(
            url: url, cacheType: result.cacheType, format: variant.format, size: variant.pixelSize, bytes: variant.count, elapsed: .zero,
            output: path
        )
        return FetchAnswer(record: record, alternative: result.alternativeSourceIndex)
    }

    /// The bytes to write: the downloaded (or cached) bytes as they are when nothing asks
    /// for a change, else the (thumbnailed, resized) image encoded in `--format` (or its own
    /// format when writable, else PNG with alpha and JPEG without).
    private static func outputBytes(image: Image, downloaded: Data?, settings: Settings) async throws(ImageError) -> (Data, ImageFormat) {
        if !settings.changesImage, let downloaded {
            return (downloaded, ImageFormat(data: downloaded))
        }
        let target = settings.format ?? (image.format.isWritable ? image.format : image.hasAlpha ? .png : .jpeg)
        let data = try await VipsCoder.shared.encodeInBackground(image, options: ImageEncodeOptions(format: target, quality: settings.quality))
        return (data, target)
    }

    // MARK: Printing

    private static func print(_ record: FetchRecord, settings: Settings) {
        let toStandardError = settings.toStandardOutput
        if settings.json {
            let line = JSONLines.line(record)
            toStandardError ? Console.err(line) : Console.out(line)
        } else if record.ok {
            toStandardError ? Console.err(record.humanLine) : Console.out(record.humanLine)
        }
        if let error = record.error {
            Console.err("webimage: \(record.url): \(error)")
        }
    }
}

/// What `fetch` reports for one image.
struct FetchRecord: Encodable, Sendable {
    var url: String
    var ok: Bool
    var cacheType: String?
    var format: String?
    var width: Int?
    var height: Int?
    var bytes: Int?
    var milliseconds: Int
    var output: String?
    /// The `--alternative` that answered; `nil` when the URL itself (or the cache) did.
    var source: String?
    var error: String?

    init(
        url: URL, cacheType: CacheType? = nil, format: ImageFormat? = nil, size: PixelSize? = nil, bytes: Int? = nil,
        elapsed: Duration, output: String? = nil, error: String? = nil
    ) {
        self.url = url.absoluteString
        self.ok = error == nil
        self.cacheType = cacheType?.description
        self.format = format?.rawValue
        self.width = size?.width
        self.height = size?.height
        self.bytes = bytes
        self.milliseconds = Formatting.milliseconds(elapsed)
        self.output = output
        self.error = error
    }

    /// `URL  downloaded  png  40x30  1.2 kB  12 ms  -> ./a.png`
    var humanLine: String {
        var fields = [url]
        fields.append(cacheType.map { $0 == "none" ? "downloaded" : $0 } ?? "-")
        fields.append(format ?? "-")
        fields.append(width.flatMap { w in height.map { "\(w)x\($0)" } } ?? "-")
        fields.append(bytes.map(Formatting.bytes) ?? "-")
        fields.append("\(milliseconds) ms")
        if let source { fields.append("from " + source) }
        if let output { fields.append("-> " + output) }
        return fields.joined(separator: "  ")
    }
}

/// The failures of one URL's sources reported while it loads with `--alternative`
/// (``ImageEvent/sourceFailed(url:source:reason:next:)``), in order.
final class SourceFailures: Sendable {
    private let failures = Locked<[(URL, ImageError)]>([])
    private let observation: (ImageEvents, ImageEvents.Observation)?

    /// Starts listening to `events` for loads of `url`; `nil`: nothing to listen to.
    init(url: URL, events: ImageEvents?) {
        guard let events else {
            observation = nil
            return
        }
        let failures = self.failures
        observation = (events, events.observe { event in
            guard case .sourceFailed(url, let source, let reason, _) = event else { return }
            failures.withLock { $0.append((source, reason)) }
        })
    }

    /// Each source that failed, with its error.
    var values: [(URL, ImageError)] { failures.withLock { $0 } }

    /// Stops listening.
    func stop() {
        if let (events, observation) = observation { events.removeObserver(observation) }
    }
}

/// Hands records to `print` in index order, each as soon as the ones before it are done.
final class OrderedPrinter: Sendable {
    private struct State {
        var records: [FetchRecord?]
        var nextToPrint = 0
    }

    private let state: InlineLocked<State>
    private let print: @Sendable (FetchRecord) -> Void

    init(count: Int, print: @escaping @Sendable (FetchRecord) -> Void) {
        state = InlineLocked(State(records: Array(repeating: nil, count: count)))
        self.print = print
    }

    func deliver(_ record: FetchRecord, at index: Int) {
        // Printing under the lock keeps the lines in order across threads.
        state.withLock { state in
            state.records[index] = record
            while state.nextToPrint < state.records.count, let ready = state.records[state.nextToPrint] {
                print(ready)
                state.nextToPrint += 1
            }
        }
    }

    var records: [FetchRecord] { state.withLock { $0.records.compactMap { $0 } } }
}

/// Bytes received by each running download, for the progress bar's total.
final class ReceivedBytes: Sendable {
    private let byIndex = InlineLocked<[Int: Int]>([:])

    /// Records that download `index` received `bytes` so far; returns the total over all.
    func set(_ bytes: Int, for index: Int) -> Int {
        byIndex.withLock { byIndex in
            byIndex[index] = bytes
            return byIndex.values.reduce(0, +)
        }
    }
}
