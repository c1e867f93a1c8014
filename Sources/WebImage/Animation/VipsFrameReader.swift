import CVips
import Foundation
import WebImageLocking

/// Decodes the frames of an encoded animation one at a time on libvips, holding the
/// encoded bytes and never more than one frame's worth of decoder state.
///
/// Loading frame `i` alone (`page=i,n=1`) would make the GIF decoder composite every
/// frame before it again, for each frame: quadratic in the frame count. The reader keeps
/// lazily loaded, sequential views of all frames (`n=-1,access=sequential`) and reads
/// them forwards, so each frame of a playback in order costs one frame's decode. A frame
/// before the last one a view read opens another view: libvips' sequential loaders read
/// forwards only. Up to ``maxViews`` views stay open, so that as many readers going
/// through the frames at once (encodes of one decoded animation) each read forwards.
final class VipsFrameReader: Sendable {
    /// The encoded bytes libvips reads, at an address that does not move while a view
    /// reads them.
    private final class EncodedBytes: @unchecked Sendable {
        let buffer: UnsafeMutableRawBufferPointer

        init(_ bytes: UnsafeRawBufferPointer) {
            buffer = .allocate(byteCount: bytes.count, alignment: 16)
            buffer.copyMemory(from: bytes)
        }

        deinit { buffer.deallocate() }
    }

    /// An open view and the first page it has not read yet.
    private struct Cursor {
        var view: VipsImageHandle
        var nextPage = 0
    }

    /// How many views stay open at most.
    static let maxViews = 4

    let format: ImageFormat
    let frameCount: Int
    let frameSize: PixelSize
    private let strictness: ImageDecodeOptions.Strictness
    private let bytes: EncodedBytes
    /// Load options every view is opened with besides the frames and the access.
    private let loadOptions: String
    /// Whether frames keep their colour profile instead of being converted to sRGB.
    private let keepsColorProfile: Bool
    private let cursors = Locked([Cursor]())

    /// The frame delays in milliseconds the header declares, if any.
    let delays: [Int]?
    /// The loop count the header declares (0: forever).
    let loopCount: Int

    /// What a reader knows of the header before it opens its views.
    private enum Header {
        /// Nothing: it reads the header and checks these limits.
        case unread(ImageLimits)
        /// The caller read it and checked its limits: this many frames.
        case checked(frames: Int)
    }

    /// Reads the header of `data` (no pixel is decoded) and checks `limits` for a reader
    /// that holds one frame at a time: the first `maxFrames` frames are read, one frame's
    /// pixels are checked against `maxFramePixels` (an animation's, when set) or `maxPixels`.
    convenience init(data: Data, format: ImageFormat, limits: ImageLimits, strictness: ImageDecodeOptions.Strictness) throws(ImageError) {
        let bytes = data.withUnsafeBytes { EncodedBytes($0) }
        try self.init(bytes: bytes, format: format, header: .unread(limits), strictness: strictness)
    }

    /// A reader of a copy of `bytes`, an animation of `frames` frames whose header the
    /// caller has read and checked against its limits, that opens its views with
    /// `loadOptions` as well (a loader's shrink-on-load, such as WebP's `scale=0.5`):
    /// ``frameSize`` is the size the loader gives. `keepsColorProfile`: the frames keep
    /// their profile (``ImageDecodeOptions/keepsColorProfile``).
    convenience init(
        bytes: UnsafeRawBufferPointer, format: ImageFormat, frames: Int, strictness: ImageDecodeOptions.Strictness,
        loadOptions: String = "", keepsColorProfile: Bool = false
    ) throws(ImageError) {
        try self.init(
            bytes: EncodedBytes(bytes), format: format, header: .checked(frames: frames), strictness: strictness,
            loadOptions: loadOptions, keepsColorProfile: keepsColorProfile
        )
    }

    private init(
        bytes: EncodedBytes, format: ImageFormat, header: Header, strictness: ImageDecodeOptions.Strictness,
        loadOptions: String = "", keepsColorProfile: Bool = false
    ) throws(ImageError) {
        self.format = format
        self.strictness = strictness
        self.bytes = bytes
        self.loadOptions = loadOptions
        self.keepsColorProfile = keepsColorProfile
        var first: VipsImageHandle?
        let pages: Int
        switch header {
        case .checked(let frames):
            pages = frames
        case .unread(let limits):
            let opened = try Self.open(bytes, options: "", format: format, strictness: strictness)
            pages = format.supportsAnimation ? limits.framesDecoded(of: opened.pagesInFile) : 1
            // Frames are decoded one at a time: each is checked, not their sum.
            try limits.check(frames: pages, frameSize: PixelSize(width: opened.width, height: opened.pageHeight), framesDecodedTogether: 1)
            first = opened
        }
        frameCount = pages
        // Every page at once, still lazily: the frame size as the views give it, the delays
        // and loop count of all frames, and libvips' check that the pages share one size.
        let all: VipsImageHandle
        if let first, pages == 1, loadOptions.isEmpty {
            all = first
        } else {
            all = try Self.open(bytes, options: Self.viewOptions(frames: pages, loadOptions: loadOptions), format: format, strictness: strictness)
        }
        frameSize = PixelSize(width: all.width, height: all.pageHeight)
        delays = all.intArray("delay")
        loopCount = max(0, all.int("loop") ?? 0)
    }

    deinit {
        // The views read `bytes`: they go first.
        cursors.withLock { $0.removeAll() }
    }

    /// Frame `index`, decoded, in 8-bit sRGB (or grey) as ``VipsCoder`` decodes, owning its
    /// pixels. One frame is decoded at a time per reader.
    func frame(at index: Int) throws(ImageError) -> Image {
        Image(
            handle: try frameHandle(at: index), format: format, frameCount: 1, frameDurations: [], loopCount: 0,
            sourceOrientation: 1, loadedPixelSize: frameSize, sourcePixelSize: frameSize
        )
    }

    /// The pixels of frame `index`, as ``frame(at:)`` gives them.
    func frameHandle(at index: Int) throws(ImageError) -> VipsImageHandle {
        guard (0..<frameCount).contains(index) else {
            throw .badImageData("frame \(index) is outside 0..<\(frameCount)")
        }
        let result = cursors.withLock { cursors in
            Result { () throws(ImageError) -> VipsImageHandle in
                // The view furthest along that has not passed the frame, else a new one.
                let usable = cursors.indices.filter { cursors[$0].nextPage <= index }
                let chosen: Int
                if let best = usable.max(by: { cursors[$0].nextPage < cursors[$1].nextPage }) {
                    chosen = best
                } else {
                    let view = try openAll()
                    if cursors.count < Self.maxViews {
                        cursors.append(Cursor(view: view))
                        chosen = cursors.count - 1
                    } else {
                        // Every view is past the frame: the one furthest behind starts again.
                        chosen = cursors.indices.min(by: { cursors[$0].nextPage < cursors[$1].nextPage }) ?? 0
                        cursors[chosen] = Cursor(view: view)
                    }
                }
                do throws(ImageError) {
                    let frame = try read(index, from: cursors[chosen].view)
                    cursors[chosen].nextPage = index + 1
                    return frame
                } catch {
                    // A failed read may leave the decoder mid-frame: that view is not used again.
                    cursors.remove(at: chosen)
                    throw error
                }
            }
        }
        return try result.get()
    }

    private func openAll() throws(ImageError) -> VipsImageHandle {
        try Self.open(bytes, options: Self.viewOptions(frames: frameCount, loadOptions: loadOptions), format: format, strictness: strictness)
    }

    /// The options of a view: every frame, read forwards, and `loadOptions`.
    private static func viewOptions(frames: Int, loadOptions: String) -> String {
        [frames > 1 ? "n=\(frames)" : "", "access=sequential", loadOptions].filter { !$0.isEmpty }.joined(separator: ",")
    }

    private func read(_ index: Int, from view: VipsImageHandle) throws(ImageError) -> VipsImageHandle {
        let height = frameSize.height
        let page = frameCount > 1
            ? try Vips.run("extracting frame \(index)") {
                wi_extract_area(view.pointer, $0, 0, Int32(index * height), Int32(frameSize.width), Int32(height))
            }
            : view
        var decoded = try VipsDecode.finished(
            page, "cannot decode frame \(index) of the \(frameCount)-frame \(format.rawValue)", keepingProfile: keepsColorProfile
        )
        // A frame is a still image: no frame height an encoder would act on.
        if decoded.int("page-height") != nil {
            let shared = decoded
            decoded = try Vips.run("copying frame \(index)") { wi_copy(shared.pointer, $0) }
            wi_remove(decoded.pointer, "page-height")
        }
        return decoded
    }

    private static func open(
        _ bytes: EncodedBytes, options: String, format: ImageFormat, strictness: ImageDecodeOptions.Strictness
    ) throws(ImageError) -> VipsImageHandle {
        let optionString = options.isEmpty ? "" : "[\(options)]"
        guard let pointer = wi_load_buffer(bytes.buffer.baseAddress, bytes.buffer.count, optionString, strictness.vipsFailOn) else {
            throw .badImageData("cannot read the \(format.rawValue) animation: \(Vips.takeError())")
        }
        return VipsImageHandle(pointer)
    }
}
