import Foundation
import WebImage

/// The settings of ``SettingSection/limits``.
extension ServerSetting {
    /// The settings of ``SettingSection/limits``, in the order the help lists them.
    static let limitSettings: [ServerSetting] = [
        maxSourceBytes, maxSourceResolution, maxAnimationFrames, maxAnimationFrameResolution, maxResultDimension, requestTimeout, workers,
        queueSize, memoryBudget, maxEncodes,
    ]

    /// `--max-source-bytes`: largest source download.
    public static let maxSourceBytes = bytes(
        "maxSourceBytes", .limits, \.limits.maxSourceBytes, bounds: .atLeast(1),
        imgproxy: [zeroKeepsDefault("IMGPROXY_MAX_SRC_FILE_SIZE")],
        default: "`64M`",
        help: "largest source download"
    )

    /// `--max-source-resolution`: largest source in megapixels, every frame counted.
    public static let maxSourceResolution = ServerSetting(
        "maxSourceResolution", .limits, kind: .custom, bounds: .atLeast(1), placeholder: "MP",
        imgproxy: [same("IMGPROXY_MAX_SRC_RESOLUTION")],
        default: "`50`",
        help: "largest source in megapixels, every frame counted",
        checkedValue: { config in (Double(config.limits.maxSourceResolution), String(config.limits.maxSourceResolution)) }
    ) { setting, values, config throws(ServerConfigError) in
        // Megapixels, as imgproxy's IMGPROXY_MAX_SRC_RESOLUTION.
        let value = values.last ?? ""
        guard let megapixels = Double(value), megapixels > 0, megapixels < 1_000_000 else {
            throw setting.invalid(value, "a number of megapixels, e.g. 50")
        }
        config.limits.maxSourceResolution = Int(megapixels * 1_000_000)
    }

    /// `--max-animation-frames`: frames of an animation processed: its first N; at 1 the output is a still of the first frame (the pixel limits count the frames processed).
    public static let maxAnimationFrames = integer(
        "maxAnimationFrames", .limits, \.limits.maxAnimationFrames, bounds: .atLeast(1),
        imgproxy: [same("IMGPROXY_MAX_ANIMATION_FRAMES")],
        imgproxyDefault: 1,
        help: "frames of an animation processed: its first N; at 1 the output is a still of the first frame (the pixel limits count the frames processed)"
    )

    /// `--max-animation-frame-resolution`: most megapixels of one frame of an animation, checked instead of the whole animation's.
    public static let maxAnimationFrameResolution = ServerSetting(
        "maxAnimationFrameResolution", .limits, kind: .custom, bounds: .atLeast(1), placeholder: "MP",
        imgproxy: [same("IMGPROXY_MAX_ANIMATION_FRAME_RESOLUTION")],
        default: "none",
        help: "most megapixels of one frame of an animation, checked instead of the whole animation's",
        checkedValue: { config in config.limits.maxAnimationFrameResolution.map { (Double($0), String($0)) } }
    ) { setting, values, config throws(ServerConfigError) in
        // Megapixels, as imgproxy's IMGPROXY_MAX_ANIMATION_FRAME_RESOLUTION; 0 is no limit.
        let value = values.last ?? ""
        guard let megapixels = Double(value.trimmingCharacters(in: .whitespaces)), megapixels >= 0, megapixels < 1_000_000 else {
            throw setting.invalid(value, "a number of megapixels, e.g. 10, or 0 for no limit")
        }
        config.limits.maxAnimationFrameResolution = megapixels == 0 ? nil : Int(megapixels * 1_000_000)
    }

    /// `--max-result-dimension`: largest width, height, crop or offset a URL may ask for (after `dpr`); every result is scaled down to fit it.
    public static let maxResultDimension = integer(
        "maxResultDimension", .limits, \.limits.maxResultDimension, bounds: .atLeast(1),
        imgproxy: [zeroKeepsDefault("IMGPROXY_MAX_RESULT_DIMENSION")],
        imgproxyDefault: ServerProfile.unboundedResultDimension,
        help: "largest side of a result: a URL asking for more (its sizes times `dpr` and `zoom`, padding, extend) gets its result scaled down to it"
    )

    /// `--request-timeout`: longest a request may take before 504; its work stops then, unless another request waits for the same image.
    public static let requestTimeout = seconds(
        "requestTimeout", .limits, \.limits.requestTimeout,
        imgproxy: [same("IMGPROXY_TIMEOUT"), same("IMGPROXY_WRITE_TIMEOUT", isImgproxys: false)],
        imgproxyDefault: 10,
        help: "longest a request may take before 504; its work stops then, unless another request waits for the same image"
    )

    /// `--workers`: cache misses processed at once (decode, resize, encode), once their source is downloaded.
    public static let workers = integer(
        "workers", .limits, \.limits.workers, bounds: .atLeast(1),
        imgproxy: [same("IMGPROXY_WORKERS"), same("IMGPROXY_CONCURRENCY", isImgproxys: false)],
        default: "2 × cores",
        help: "cache misses processed at once (decode, resize, encode), once their source is downloaded"
    )

    /// `--queue-size`: misses waiting for a worker; one more is answered 429.
    public static let queueSize = integer(
        "queueSize", .limits, \.limits.queueSize, bounds: .atLeast(0),
        imgproxy: [zeroKeepsDefault("IMGPROXY_REQUESTS_QUEUE_SIZE")],
        help: "misses waiting for a worker; one more is answered 429"
    )

    /// `--memory-budget`: bytes the workers may reserve at once for the images they make (decode, transform, encode); a worker whose image does not fit waits in its slot, and an image that could never fit is answered 422 before it is decoded (see The memory budget).
    public static let memoryBudget = bytes(
        "memoryBudget", .limits, \.limits.memoryBudget, bounds: .atLeast(1),
        default: "a quarter of the machine's memory, or of the container's limit when lower",
        help: "bytes the workers may reserve at once for the images they make (decode, transform, encode); a worker whose image does not fit waits in its slot, and an image that could never fit is answered 422 before it is decoded (see [The memory budget](#the-memory-budget))"
    )

    /// `--max-encodes`: encodes one image may take: `format:best` tries each format, `quality:auto` searches qualities and `max_bytes` lowers the quality, each an encode; past it the best result so far is served (a `max_bytes` not met yet answers 422).
    public static let maxEncodes = integer(
        "maxEncodes", .limits, \.limits.maxEncodes, bounds: .atLeast(1),
        help: "encodes one image may take: `format:best` tries each format, `quality:auto` searches qualities and `max_bytes` lowers the quality, each an encode; past it the best result so far is served (a `max_bytes` not met yet answers 422)"
    )
}
