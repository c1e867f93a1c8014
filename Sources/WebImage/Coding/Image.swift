import CVips
import Foundation

/// A decoded image: an immutable, `Sendable` value that owns its libvips pixels.
///
/// An animated image holds all its frames (unless it was decoded first-frame-only);
/// `pixelSize` is the size of one frame. Images come from a coder (``VipsCoder``,
/// ``QOICoder``) or from raw pixels with ``init(pixels:width:height:channels:)``.
public struct Image: Sendable {
    /// Every property in one reference: copying an `Image` (into a result, a cache entry,
    /// a completion) is one retain instead of a dozen words with three references, which
    /// is most of the cost of a memory-cache hit through the manager.
    private let storage: Storage

    /// The properties of an ``Image``, shared by its copies.
    final class Storage: Sendable {
        let handle: VipsImageHandle
        let pixelSize: PixelSize
        let format: ImageFormat
        let frameCount: Int
        let frameDurations: [Double]
        let loopCount: Int
        let sourceOrientation: Int
        let loadedPixelSize: PixelSize
        let sourcePixelSize: PixelSize
        let scale: Double
        /// Where the frames of an animation come from when they are made on demand; `nil`
        /// when the pixels are in memory.
        let strip: FrameStrip?

        init(
            handle: VipsImageHandle, pixelSize: PixelSize, format: ImageFormat, frameCount: Int, frameDurations: [Double],
            loopCount: Int, sourceOrientation: Int, loadedPixelSize: PixelSize, sourcePixelSize: PixelSize, scale: Double,
            strip: FrameStrip?
        ) {
            self.handle = handle
            self.pixelSize = pixelSize
            self.format = format
            self.frameCount = frameCount
            self.frameDurations = frameDurations
            self.loopCount = loopCount
            self.sourceOrientation = sourceOrientation
            self.loadedPixelSize = loadedPixelSize
            self.sourcePixelSize = sourcePixelSize
            self.scale = scale
            self.strip = strip
        }
    }

    var handle: VipsImageHandle { storage.handle }

    /// Where the frames come from when they are made on demand (``FrameStrip``); `nil`
    /// when the pixels are in memory.
    var strip: FrameStrip? { storage.strip }

    /// The size of one frame, in pixels, upright (EXIF orientation already applied).
    public var pixelSize: PixelSize { storage.pixelSize }
    /// The container format the image was decoded from (`unknown` for images made from pixels).
    public var format: ImageFormat { storage.format }
    /// Number of frames held (1 for a still image).
    public var frameCount: Int { storage.frameCount }
    /// Display duration of each frame, in seconds; empty for a still image.
    public var frameDurations: [Double] { storage.frameDurations }
    /// How many times an animation plays; 0 means forever.
    public var loopCount: Int { storage.loopCount }
    /// The EXIF orientation (1–8) the source declared; the pixels are already upright.
    public var sourceOrientation: Int { storage.sourceOrientation }
    /// The size the codec decoded before the final resample: smaller than the source when
    /// shrink-on-load was used, which is how a thumbnail avoids decoding every pixel.
    public var loadedPixelSize: PixelSize { storage.loadedPixelSize }
    /// The size of one frame in the source file, before any thumbnailing or scaling.
    public var sourcePixelSize: PixelSize { storage.sourcePixelSize }
    /// Pixels per point, as `UIImage.scale`: 2 for an `@2x` image, whose ``pointSize`` is
    /// half its ``pixelSize``. The manager sets it from the file name of the key
    /// (``ImageScale/factor(forKey:)``) or from ``ImageProcessing/scaleFactor``; an image
    /// made any other way has scale 1. Only the size in points depends on it: the pixels
    /// are the same.
    public var scale: Double { storage.scale }

    /// The size of one frame in points: ``pixelSize`` divided by ``scale``.
    public var pointSize: (width: Double, height: Double) {
        (Double(pixelSize.width) / scale, Double(pixelSize.height) / scale)
    }

    init(
        handle: VipsImageHandle,
        format: ImageFormat,
        frameCount: Int,
        frameDurations: [Double],
        loopCount: Int,
        sourceOrientation: Int,
        loadedPixelSize: PixelSize,
        sourcePixelSize: PixelSize,
        scale: Double = 1,
        strip: FrameStrip? = nil
    ) {
        let frames = max(1, frameCount)
        storage = Storage(
            handle: handle, pixelSize: PixelSize(width: handle.width, height: handle.height / frames), format: format,
            frameCount: frames, frameDurations: frameDurations, loopCount: loopCount, sourceOrientation: sourceOrientation,
            loadedPixelSize: loadedPixelSize, sourcePixelSize: sourcePixelSize, scale: scale, strip: strip
        )
    }

    private init(storage: Storage) {
        self.storage = storage
    }

    /// This image with `scale` pixels per point (SDWebImage's `SDScaledImageForScaleFactor`):
    /// the same pixels, shared, and every other property kept. `scale` must be positive;
    /// anything else is taken as 1.
    public func withScale(_ scale: Double) -> Image {
        let scale = scale.isFinite && scale > 0 ? scale : 1
        if scale == self.scale { return self }
        let old = storage
        return Image(storage: Storage(
            handle: old.handle, pixelSize: old.pixelSize, format: old.format, frameCount: old.frameCount,
            frameDurations: old.frameDurations, loopCount: old.loopCount, sourceOrientation: old.sourceOrientation,
            loadedPixelSize: old.loadedPixelSize, sourcePixelSize: old.sourcePixelSize, scale: scale, strip: old.strip
        ))
    }

    /// Makes an image from 8-bit pixels, row by row, `channels` bytes a pixel
    /// (1 grey, 2 grey + alpha, 3 RGB, 4 RGBA).
    public init(pixels: [UInt8], width: Int, height: Int, channels: Int) throws(ImageError) {
        try self.init(pixels: pixels, width: width, height: height, channels: channels, format: .unknown)
    }

    /// Makes an image from 8-bit pixels, as ``init(pixels:width:height:channels:)`` does,
    /// labelled as decoded from `format`: for coders that decode into a pixel buffer.
    init(pixels: [UInt8], width: Int, height: Int, channels: Int, format: ImageFormat) throws(ImageError) {
        try Vips.start()
        guard width > 0, height > 0, (1...4).contains(channels), pixels.count == width * height * channels else {
            throw .badImageData("pixel buffer of \(pixels.count) bytes does not match \(width)×\(height)×\(channels)")
        }
        let pointer = pixels.withUnsafeBytes {
            wi_image_from_pixels($0.baseAddress, $0.count, Int32(width), Int32(height), Int32(channels))
        }
        guard let pointer else { throw .badImageData("cannot make an image from pixels: \(Vips.takeError())") }
        let size = PixelSize(width: width, height: height)
        self.init(
            handle: VipsImageHandle(pointer), format: format, frameCount: 1,
            frameDurations: [], loopCount: 0, sourceOrientation: 1, loadedPixelSize: size, sourcePixelSize: size
        )
    }

    /// Whether the image has more than one frame.
    public var isAnimated: Bool { frameCount > 1 }

    /// Bytes per pixel: the number of channels (8 bits each).
    public var channels: Int { handle.bands }

    /// The ICC profile the pixels are in, when it is not sRGB's default: `nil` for an image
    /// in sRGB without a profile, as a decode hands it out unless it keeps the profile
    /// (``ImageDecodeOptions/keepsColorProfile``).
    public var colorProfile: ICCProfile? { VipsColor.profile(of: handle) }

    /// Whether the image has an alpha channel.
    public var hasAlpha: Bool { handle.hasAlpha }

    /// Bytes the decoded pixels occupy: width × height × bytes-per-pixel × frames.
    /// The memory cache uses it as the image's cost.
    public var memoryCost: Int { pixelSize.width * pixelSize.height * channels * frameCount }

    /// All pixels, 8 bits a channel, `channels` bytes a pixel, frame after frame.
    public func pixels() throws(ImageError) -> Data {
        var size = 0
        guard let memory = vips_image_write_to_memory(handle.pointer, &size) else {
            throw .badImageData("cannot read pixels: \(Vips.takeError())")
        }
        return Data(bytesNoCopy: memory, count: size, deallocator: .custom { pointer, _ in wi_g_free(pointer) })
    }

    /// The channel values of one pixel of one frame (0–255 each).
    public func pixel(x: Int, y: Int, frame: Int = 0) throws(ImageError) -> [Int] {
        guard (0..<pixelSize.width).contains(x), (0..<pixelSize.height).contains(y), (0..<frameCount).contains(frame) else {
            throw .badImageData("pixel (\(x), \(y)) of frame \(frame) is outside the \(pixelSize) image")
        }
        var vector: UnsafeMutablePointer<Double>?
        var count: Int32 = 0
        guard wi_getpoint(handle.pointer, &vector, &count, Int32(x), Int32(y + frame * pixelSize.height)) == 0, let vector else {
            throw .badImageData("cannot read pixel: \(Vips.takeError())")
        }
        defer { wi_g_free(vector) }
        return (0..<Int(count)).map { Int(vector[$0].rounded()) }
    }
}
