import CVips
import Synchronization
import WebImageLocking

/// The frames of an animation made one at a time, when a reader of its pixels reaches
/// them, instead of all at once into memory.
///
/// libvips stores an animation as one strip of frames, `page-height` tall each. A strip
/// made here is a libvips image like any other (a saver streams it, a copy into memory
/// fills it), but its pixels come from `provide`, a frame at a time, in memory only while
/// they are read: an animated variant holds about one frame of each stage instead of every
/// frame of each. A frame read again (a second encode, a region across a frame boundary
/// behind the last two) is made again.
final class FrameStrip: Sendable {
    /// Makes frame `index`, 8 bits a channel, computed: in memory, or a view of pixels that are.
    typealias Provider = @Sendable (Int) throws(ImageError) -> VipsImageHandle

    private let provide: Provider
    private let firstFailure = Locked<ImageError?>(nil)
    private let made = Atomic<Int>(0)
    /// Set once the strip is made. libvips hands the strip to its worker threads through
    /// GLib's own synchronisation, which the thread sanitizer cannot see (GLib is not
    /// instrumented): this release, and the acquire where libvips calls in, show it the
    /// order libvips keeps, for everything made before the strip (the inputs the provider
    /// reads).
    private let published = Atomic<Bool>(false)

    private init(provide: @escaping Provider) {
        self.provide = provide
    }

    /// The first error the provider threw while libvips read the strip: libvips reports
    /// only its text, so whoever reads the strip rethrows this instead.
    var failure: ImageError? { firstFailure.withLock { $0 } }

    /// How many frames the provider has made: the frame count for each full read.
    var framesMade: Int { made.load(ordering: .relaxed) }

    /// Frame `index`, straight from the provider.
    func frame(_ index: Int) throws(ImageError) -> VipsImageHandle {
        made.add(1, ordering: .relaxed)
        return try provide(index)
    }

    /// A strip of `frames` frames of `frameSize`, with `bands` bands in `interpretation`,
    /// whose pixels `provide` makes; the strip's own fields (frame height, delays, loop
    /// count) are left to the caller.
    static func make(
        frameSize: PixelSize, frames: Int, bands: Int, interpretation: Int32, provide: @escaping Provider
    ) throws(ImageError) -> (handle: VipsImageHandle, strip: FrameStrip) {
        let strip = FrameStrip(provide: provide)
        // The image holds the strip until it closes; `releaseFrameStrip` lets go of it.
        let context = Unmanaged.passRetained(strip).toOpaque()
        guard let pointer = wi_frame_strip_new(
            Int32(frameSize.width), Int32(frameSize.height), Int32(frames), Int32(bands), interpretation,
            provideFrame, releaseFrameStrip, context
        ) else {
            throw .badImageData("cannot set up an animation of \(frames) frames: \(Vips.takeError())")
        }
        strip.published.store(true, ordering: .releasing)
        return (VipsImageHandle(pointer), strip)
    }

    /// Frame `index` with a reference for libvips, or `nil` with the error recorded and
    /// set as libvips' error.
    fileprivate func frameForLibvips(_ index: Int) -> UnsafeMutablePointer<VipsImage>? {
        _ = published.load(ordering: .acquiring)
        do throws(ImageError) {
            let frame = try self.frame(index)
            wi_object_ref(frame.pointer)
            return frame.pointer
        } catch {
            firstFailure.withLock { if $0 == nil { $0 = error } }
            wi_set_error("webimage", error.description)
            return nil
        }
    }
}

/// libvips' call for a frame: the context is the `FrameStrip` the image holds.
private let provideFrame: wi_frame_provider = { context, index in
    guard let context else { return nil }
    return Unmanaged<FrameStrip>.fromOpaque(context).takeUnretainedValue().frameForLibvips(Int(index))
}

/// libvips' call when the strip's image closes.
private let releaseFrameStrip: wi_frame_release = { context in
    guard let context else { return }
    Unmanaged<FrameStrip>.fromOpaque(context).release()
}
