import CVips
import Foundation
import WebImageLocking

/// The ``ImageCoder`` on libvips: decodes JPEG, PNG, GIF, WebP, HEIC/HEIF, AVIF, TIFF,
/// JPEG XL and SVG; encodes JPEG, PNG, WebP, AVIF, HEIC, GIF, TIFF and JPEG XL, and BMP
/// and ICO (``ImageFormat/isWritable``).
///
/// libvips has no QOI loader: QOI bytes are refused (``canDecode(_:)`` is `false`, and
/// decoding them throws a message pointing to ``QOICoder``). An ``ImageCodersManager``
/// holding both coders reads every format.
///
/// Every decode reads the header first and checks ``ImageLimits`` before any pixel is
/// allocated, applies EXIF orientation, converts to 8-bit sRGB (or grey), and finishes
/// in memory so that errors in the data surface here, as ``ImageError/badImageData(_:)``,
/// and never later.
public struct VipsCoder: ImageCoder {
    /// The shared coder; it holds no state.
    public static let shared = VipsCoder()

    /// Creates a coder.
    public init() {}

    private static let untrustedAllowed = Locked(false)

    /// Formats libvips reads only through loaders it marks untrusted (ImageMagick, PDF, JPEG XL).
    static let untrustedLoaders: [ImageFormat: String] = [.pdf: "pdfload", .bmp: "magickload", .ico: "magickload", .jxl: "jxlload"]

    /// Formats libvips has no loader or saver for, with the WebImage coder that handles them.
    static let otherCoders: [ImageFormat: String] = [.qoi: "QOICoder"]

    /// Allows or blocks libvips' untrusted loaders (ImageMagick for BMP/ICO, PDF) for the
    /// whole process. Blocked by default: enable only when every input is trusted.
    public static func setUntrustedLoadersAllowed(_ allowed: Bool) throws(ImageError) {
        try Vips.start()
        untrustedAllowed.withLock {
            $0 = allowed
            wi_vips_block_untrusted(allowed ? 0 : 1)
        }
    }

    /// Whether untrusted loaders are allowed (see ``setUntrustedLoadersAllowed(_:)``).
    public static var untrustedLoadersAllowed: Bool { untrustedAllowed.withLock { $0 } }

    /// Whether `data` starts like a format libvips reads: not QOI, and not a format of an
    /// untrusted loader unless ``untrustedLoadersAllowed``.
    public func canDecode(_ data: Data) -> Bool {
        let format = ImageFormat(data: data)
        guard format != .unknown, Self.otherCoders[format] == nil else { return false }
        return Self.untrustedLoaders[format] == nil || Self.untrustedLoadersAllowed
    }

    /// Whether libvips writes `format` (``ImageFormat/isWritable``).
    public func canEncode(_ format: ImageFormat) -> Bool { format.isWritable }

    // MARK: Decoding

    /// The bytes libvips is given for `data` of `format`: an SVG sanitised first
    /// (``SVGSanitizer``), so that librsvg, which draws it, never meets a script, an external
    /// reference or an entity expansion; any other format as it is.
    static func drawable(_ data: Data, format: ImageFormat) throws(ImageError) -> Data {
        format == .svg ? try SVGSanitizer().sanitize(data) : data
    }

    /// Decodes `data` with libvips, checking the header against the limits in `options` before
    /// any pixel is allocated.
    public func decode(_ data: Data, options: ImageDecodeOptions = .init()) throws(ImageError) -> Image {
        try Vips.start()
        let format = try Self.checkedFormat(of: data)
        let data = try Self.drawable(data, format: format)
        // Everything happens inside withUnsafeBytes: libvips reads the buffer lazily, and
        // the decode finishes in memory before the closure returns.
        let result = data.withUnsafeBytes { bytes in
            Result { () throws(ImageError) -> Image in
                try VipsDecode(bytes: bytes, format: format, options: options).run()
            }
        }
        return try result.get()
    }

    /// Reads the header once for the plan, the limit checks and the decode (a new header is
    /// read only when the plan asks for another strictness).
    public func decode(
        _ data: Data, planning plan: (ImageInfo) throws(ImageError) -> ImageDecodeOptions
    ) throws(ImageError) -> (info: ImageInfo, image: Image) {
        try Vips.start()
        let format = try Self.checkedFormat(of: data)
        let data = try Self.drawable(data, format: format)
        return try withoutActuallyEscaping(plan) { plan throws(ImageError) in
            let result = data.withUnsafeBytes { bytes in
                Result { () throws(ImageError) -> (info: ImageInfo, image: Image) in
                    try VipsDecode.planned(bytes: bytes, format: format, plan: plan)
                }
            }
            return try result.get()
        }
    }

    /// An ``AnimatedImage``: the header is read here, each frame when it is asked for.
    public func animatedImage(
        _ data: Data, limits: ImageLimits = .default, strictness: ImageDecodeOptions.Strictness = .error
    ) throws(ImageError) -> any AnimatedImageProvider {
        try AnimatedImage(data: data, limits: limits, strictness: strictness)
    }

    /// Reads the header of `data` and checks `limits`, without decoding any pixel.
    public func inspect(_ data: Data, limits: ImageLimits = .default) throws(ImageError) -> ImageInfo {
        try Vips.start()
        let format = try Self.checkedFormat(of: data)
        let data = try Self.drawable(data, format: format)
        let result = data.withUnsafeBytes { bytes in
            Result { () throws(ImageError) -> ImageInfo in
                try VipsDecode(bytes: bytes, format: format, options: ImageDecodeOptions(limits: limits)).inspect()
            }
        }
        return try result.get()
    }

    /// Decodes the first frame of what has arrived of `data`, leniently; `nil` while too few
    /// bytes have arrived, for a format this coder does not read, and for an SVG, which is
    /// drawn only once it is whole (its sanitiser reads whole documents).
    public func decodePartial(_ data: Data, options: ImageDecodeOptions = .init()) throws(ImageError) -> Image? {
        try Vips.start()
        let format = ImageFormat(data: data)
        guard format != .unknown, format != .svg, Self.otherCoders[format] == nil,
              Self.untrustedLoaders[format] == nil || Self.untrustedLoadersAllowed else {
            return nil
        }
        var lenient = options
        lenient.strictness = .lenient
        lenient.firstFrameOnly = true
        let result = data.withUnsafeBytes { bytes in
            Result { () throws(ImageError) -> Image in
                try VipsDecode(bytes: bytes, format: format, options: lenient).run()
            }
        }
        switch result {
        case .success(let image): return image
        // Too little data for a header or for the first rows: nothing to show yet.
        case .failure(.badImageData): return nil
        case .failure(let error): throw error
        }
    }

    static func checkedFormat(of data: Data) throws(ImageError) -> ImageFormat {
        guard !data.isEmpty else { throw .badImageData("the data is empty (0 bytes)") }
        let format = ImageFormat(data: data)
        guard format != .unknown else {
            throw .badImageData("the \(data.count) bytes are not a known image format (\(Self.describeStart(of: data)))")
        }
        if let coder = otherCoders[format] {
            throw .badImageData(
                "libvips has no loader for \(format.rawValue); decode it with \(coder), or add \(coder)() to an ImageCodersManager (addCoder(_:)) and use that manager as the coder"
            )
        }
        if let loader = untrustedLoaders[format], !untrustedLoadersAllowed {
            throw .untrustedFormat(loader)
        }
        return format
    }

    /// Says what unknown bytes look like, so an HTML error page is recognisable in a log.
    static func describeStart(of data: Data) -> String {
        let head = data.prefix(64)
        let text = String(decoding: head, as: UTF8.self)
        let lowered = text.lowercased()
        if lowered.contains("<html") || lowered.contains("<!doctype html") { return "looks like an HTML page" }
        if head.allSatisfy({ $0 == 9 || $0 == 10 || $0 == 13 || (32..<127).contains($0) }) {
            return "looks like text: \"\(text.prefix(32))\""
        }
        return "starts with " + head.prefix(8).map { String(format: "%02x", $0) }.joined(separator: " ")
    }

    // MARK: Encoding

    /// Encodes `image` as `options.format`; with a ``ImageEncodeOptions/maxFileSize``, lowers
    /// a lossy format's quality until the bytes fit.
    public func encode(_ image: Image, options: ImageEncodeOptions) throws(ImageError) -> Data {
        try Vips.start()
        guard options.format.isWritable else {
            if let coder = Self.otherCoders[options.format] {
                throw .encodingFailed(
                    "libvips cannot write \(options.format.rawValue); encode it with \(coder), or with an ImageCodersManager holding \(coder)()"
                )
            }
            throw .encodingFailed("\(options.format.rawValue) cannot be written; use jpeg, png, webp, avif, heic, gif, tiff, jxl, bmp or ico")
        }
        try options.validate()
        do throws(ImageError) {
            return try encodeValidated(image, options: options)
        } catch {
            // Frames made on demand fail inside libvips' saver: their own error says why.
            throw image.frameFailure(or: error)
        }
    }

    /// ``encode(_:options:)`` after its checks.
    private func encodeValidated(_ image: Image, options: ImageEncodeOptions) throws(ImageError) -> Data {
        let prepared = try VipsEncode.prepare(image, for: options)
        let quality = min(100, max(1, options.quality))
        let allowance = EncodeAllowance.current
        try allowance?.take()
        let first = try VipsEncode.save(prepared, options: options, quality: quality)
        guard let maxBytes = options.maxFileSize, first.count > maxBytes else { return first }
        guard [.jpeg, .webp, .avif, .heic].contains(options.format), !options.lossless else {
            throw .fileSizeLimitUnreachable(maxBytes: maxBytes, smallest: first.count)
        }
        // Binary search for the highest quality whose output fits.
        var low = 1, high = quality - 1
        var best: Data?
        var smallest = first.count
        // Within the work's allowance of encodes (``EncodeAllowance``).
        while low <= high, allowance?.hasLeft ?? true {
            let middle = (low + high) / 2
            try allowance?.take()
            let candidate = try VipsEncode.save(prepared, options: options, quality: middle)
            smallest = min(smallest, candidate.count)
            if candidate.count <= maxBytes {
                best = candidate
                low = middle + 1
            } else {
                high = middle - 1
            }
        }
        guard let best else { throw .fileSizeLimitUnreachable(maxBytes: maxBytes, smallest: smallest) }
        return best
    }
}
