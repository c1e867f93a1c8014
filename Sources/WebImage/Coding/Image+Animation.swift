import CVips
import Foundation

extension Image {
    /// Makes an animated image from frames of one size, each shown for its duration
    /// (seconds), played `loopCount` times (0 = forever). Encode it as GIF or WebP.
    public static func animated(frames: [Image], durations: [Double], loopCount: Int = 0) throws(ImageError) -> Image {
        guard let first = frames.first else { throw .badImageData("an animation needs at least one frame") }
        guard durations.count == frames.count else {
            throw .badImageData("\(frames.count) frames but \(durations.count) durations")
        }
        guard frames.allSatisfy({ $0.pixelSize == first.pixelSize && $0.channels == first.channels && !$0.isAnimated }) else {
            throw .badImageData("every frame of an animation must be a still image of one size and channel count")
        }
        var pointers: [UnsafeMutablePointer<VipsImage>?] = frames.map { $0.handle.pointer }
        let joined = try Vips.run("join frames") { out in
            pointers.withUnsafeMutableBufferPointer { wi_arrayjoin_vertical($0.baseAddress, Int32(frames.count), out) }
        }
        // Metadata is set on a private copy: libvips images are shared and must not change.
        let animation = try Vips.run("copy") { wi_copy(joined.pointer, $0) }
        wi_set_int(animation.pointer, "page-height", Int32(first.pixelSize.height))
        wi_set_int(animation.pointer, "loop", Int32(max(0, loopCount)))
        var delays = durations.map { Int32(($0 * 1000).rounded()) }
        wi_set_int_array(animation.pointer, "delay", &delays, Int32(delays.count))
        guard let memory = vips_image_copy_memory(animation.pointer) else {
            throw .badImageData("cannot build the animation: \(Vips.takeError())")
        }
        return Image(
            handle: VipsImageHandle(memory), format: .unknown, frameCount: frames.count,
            frameDurations: durations, loopCount: max(0, loopCount), sourceOrientation: 1,
            loadedPixelSize: first.pixelSize, sourcePixelSize: first.pixelSize
        )
    }

    /// One frame of an animation as a still image, at the animation's scale.
    public func frame(at index: Int) throws(ImageError) -> Image {
        guard (0..<frameCount).contains(index) else {
            throw .badImageData("frame \(index) is outside 0..<\(frameCount)")
        }
        if frameCount == 1 { return self }
        let size = pixelSize
        // A frame made on demand is in memory already; a view of a frame in memory is copied out.
        var frame = try frameHandle(index)
        if strip == nil {
            guard let memory = vips_image_copy_memory(frame.pointer) else {
                throw .badImageData("cannot extract frame \(index): \(Vips.takeError())")
            }
            frame = VipsImageHandle(memory)
        }
        return Image(
            handle: frame, format: format, frameCount: 1, frameDurations: [],
            loopCount: 0, sourceOrientation: sourceOrientation, loadedPixelSize: size, sourcePixelSize: size, scale: scale
        )
    }
}
