import ArgumentParser
import Foundation
import WebImage

/// `webimage info FILE|URL`: what an image is, and whether the cache holds it.
struct InfoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "info",
        abstract: "Show an image's format, dimensions, frames, alpha, orientation, size, EXIF, colour and ThumbHash.",
        discussion: """
            A URL is looked up in the cache first (disk; memory only lives as long as a \
            command); when it is not cached it is downloaded but not stored. A file is read \
            from disk. For a URL the output also says whether it is cached and where its \
            cache file is. With --json, one JSON object with the keys source, format, \
            width, height, frames, durations (seconds a frame), loopCount, alpha, \
            orientation, bytes, colorSpace (rgb, rgb16, grey, grey16, cmyk, lab, other), \
            colorProfile (the embedded ICC profile's description), exif (camera, lens, \
            settings, date; the position only with --gps), dominantColor, thumbHash (a base64 placeholder, as the proxy's /info \
            and ImageDetails give), and for a URL cached (none or disk), cacheKey, cachePath.
            """
    )

    @Argument(help: ArgumentHelp("An image file, or an http(s), file or data URL.", valueName: "file|url"))
    var source: String

    @Flag(help: "Print one JSON object instead of text.")
    var json = false

    @Flag(help: "Include the EXIF position (left out by default).")
    var gps = false

    @OptionGroup var cache: CacheLocationOptions
    @OptionGroup var network: NetworkOptions

    /// Whether `source` is a URL (it has a scheme) rather than a path.
    private var isURL: Bool { source.contains("://") || source.hasPrefix("data:") }

    func validate() throws {
        if isURL {
            _ = try Arguments.url(source)
        } else {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: source, isDirectory: &isDirectory) else {
                throw ValidationError("no such file '\(source)': pass the path of an image file or an http(s) URL")
            }
            guard !isDirectory.boolValue else {
                throw ValidationError("'\(source)' is a directory: pass the path of an image file or an http(s) URL")
            }
        }
    }

    func run() async throws {
        let url = isURL ? try Arguments.url(source) : URL(fileURLWithPath: source)
        let info: ImageInfoRecord
        do {
            info = try await Pipeline.with(cache.cacheConfig(), downloader: try network.downloaderConfig()) { pipeline in try await inspect(url, pipeline: pipeline) }
        } catch let error as ImageError {
            Console.err("webimage: \(source): \(error)")
            throw ExitCode.failure
        }
        if json {
            Console.out(JSONLines.line(info))
        } else {
            for (name, value) in info.lines { Console.out(name + ": " + value) }
        }
    }

    private func inspect(_ url: URL, pipeline: Pipeline) async throws(ImageError) -> ImageInfoRecord {
        var request = ImageRequest(url: url, options: .retryFailed)
        // Looking at an image does not store it.
        request.caching.store = .none
        var key: String?
        var cached = false
        if url.isFileURL {
            request.caching.query = .none
        } else {
            key = pipeline.manager.cacheKey(for: request)
            cached = key.map { pipeline.disk.containsSync(forKey: $0) } ?? false
        }
        let result = try await pipeline.manager.loadImage(request)
        guard let image = result.image else { throw .badImageData("the load returned no image") }
        var data = result.data
        if data == nil, let key { data = await pipeline.cache.diskData(forKey: key) }
        let details = try data.map { data throws(ImageError) in try ImageDetails(data: data, includeGPS: gps) }
        return ImageInfoRecord(
            details: details,
            source: url.isFileURL ? url.path : url.absoluteString,
            image: image,
            bytes: data?.count,
            cached: url.isFileURL ? nil : (cached ? "disk" : "none"),
            cacheKey: key,
            cachePath: cached ? key.flatMap { pipeline.cache.cachePath(forKey: $0) } : nil
        )
    }
}

/// What `info` prints.
struct ImageInfoRecord: Encodable {
    var source: String
    var format: String
    var width: Int
    var height: Int
    var frames: Int
    var durations: [Double]?
    var loopCount: Int?
    var alpha: Bool
    var orientation: Int
    var bytes: Int?
    var colorSpace: String?
    var colorProfile: String?
    var cached: String?
    var cacheKey: String?
    var cachePath: String?
    var exif: ImageExif?
    var dominantColor: String?
    var thumbHash: String?

    init(details: ImageDetails?, source: String, image: Image, bytes: Int?, cached: String?, cacheKey: String?, cachePath: String?) {
        self.source = source
        format = image.format.rawValue
        width = image.pixelSize.width
        height = image.pixelSize.height
        frames = image.frameCount
        durations = image.isAnimated ? image.frameDurations : nil
        loopCount = image.isAnimated ? image.loopCount : nil
        alpha = image.hasAlpha
        orientation = image.sourceOrientation
        self.bytes = bytes
        self.cached = cached
        self.cacheKey = cacheKey
        self.cachePath = cachePath
        exif = details?.exif
        colorSpace = details?.colorSpace?.rawValue
        colorProfile = details?.colorProfile
        dominantColor = details?.dominantColor
        thumbHash = details?.thumbHash
    }

    /// `name: value` lines for the text output.
    var lines: [(String, String)] {
        var lines = [
            ("source", source),
            ("format", format),
            ("dimensions", "\(width)x\(height)"),
            ("frames", String(frames)),
        ]
        if let durations {
            lines.append(("durations", durations.map { String(format: "%.3gs", $0) }.joined(separator: " ")))
            lines.append(("loop count", loopCount == 0 ? "forever" : String(loopCount ?? 0)))
        }
        lines.append(("alpha", alpha ? "yes" : "no"))
        lines.append(("orientation", String(orientation)))
        if let bytes { lines.append(("bytes", "\(bytes) (\(Formatting.bytes(bytes)))")) }
        if let colorSpace { lines.append(("colour space", colorSpace)) }
        if let colorProfile { lines.append(("colour profile", colorProfile)) }
        if let exif {
            let camera = [exif.make, exif.model].compactMap { $0 }.joined(separator: " ")
            if !camera.isEmpty { lines.append(("camera", camera)) }
            if let lens = exif.lens { lines.append(("lens", lens)) }
            if let dateTime = exif.dateTime { lines.append(("taken", dateTime)) }
            if let gps = exif.gps { lines.append(("position", String(format: "%.6f, %.6f", gps.latitude, gps.longitude))) }
        }
        if let dominantColor { lines.append(("dominant colour", dominantColor)) }
        if let thumbHash { lines.append(("thumbhash", thumbHash)) }
        if let cached { lines.append(("cached", cached)) }
        if let cachePath { lines.append(("cache path", cachePath)) }
        return lines
    }
}
