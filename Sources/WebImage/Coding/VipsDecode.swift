import CVips
import Foundation

/// One decode on libvips: header, limit checks, shrink-on-load, orientation, colour
/// normalisation, and evaluation into memory.
struct VipsDecode {
    let bytes: UnsafeRawBufferPointer
    let format: ImageFormat
    let options: ImageDecodeOptions

    /// The header's facts, after the limit checks.
    func inspect() throws(ImageError) -> ImageInfo {
        info(of: try checkedHeader())
    }

    private func info(of header: Header) -> ImageInfo {
        var info = ImageInfo(
            format: format, pixelSize: header.size, frameCount: header.pages,
            orientation: header.orientation, hasAlpha: header.handle.hasAlpha,
            isInterlaced: header.handle.int("interlaced") == 1
        )
        info.colorSpace = ImageColorSpace(header.handle)
        info.colorProfile = VipsColor.profile(of: header.handle)
        if info.isInterlaced { info.interlacedBytesPerPixel = Self.interlacedBytesPerPixel(header.handle, format: format) }
        return info
    }

    /// What libvips' loader holds for each stored pixel of an interlaced file: a
    /// progressive JPEG's DCT coefficients (2 bytes each, for every band, the chroma bands
    /// at half when subsampled: libvips reports every subsampling as "4:2:0", and 4:2:2,
    /// the largest of them, is counted), an interlaced PNG's whole image as stored.
    private static func interlacedBytesPerPixel(_ header: VipsImageHandle, format: ImageFormat) -> Int? {
        let bands = header.bands
        switch format {
        case .jpeg:
            guard let text = wi_get_string(header.pointer, "jpeg-chroma-subsample") else { return nil }
            defer { wi_g_free(text) }
            let subsampled = String(cString: text).hasPrefix("4:2:0")
            // Subsampled: the luma (and CMYK's black) whole, each chroma band at half.
            return subsampled && bands >= 3 ? 2 * (bands - 1) : 2 * bands
        case .png:
            let sixteenBit = wi_band_format(header.pointer) == Int32(VIPS_FORMAT_USHORT.rawValue)
            return bands * (sixteenBit ? 2 : 1)
        default:
            return nil
        }
    }

    /// Opens the header once: asks `plan` for the decode options from its facts, then
    /// checks the planned limits and decodes, reusing the header when the plan keeps the
    /// strictness.
    static func planned(
        bytes: UnsafeRawBufferPointer, format: ImageFormat, plan: (ImageInfo) throws(ImageError) -> ImageDecodeOptions
    ) throws(ImageError) -> (info: ImageInfo, image: Image) {
        let unchecked = ImageLimits(maxPixels: .max, maxFrames: .max)
        let inspection = VipsDecode(bytes: bytes, format: format, options: ImageDecodeOptions(limits: unchecked))
        let header = try inspection.checkedHeader()
        let info = inspection.info(of: header)
        let options = try plan(info)
        let decode = VipsDecode(bytes: bytes, format: format, options: options)
        let opened = options.strictness == inspection.options.strictness ? header.handle : nil
        return (info, try decode.run(opened: opened))
    }

    private struct Header {
        let handle: VipsImageHandle
        let size: PixelSize
        let pages: Int
        let frames: Int
        let animated: Bool
        let orientation: Int
        /// When the decode converts the colours to sRGB.
        let colorConversion: VipsColor.Conversion
    }

    /// Opens the header (no pixels are decoded yet), or takes the one `opened` with no
    /// load options, and checks the limits.
    private func checkedHeader(opened: VipsImageHandle? = nil) throws(ImageError) -> Header {
        let header: VipsImageHandle
        if let opened { header = opened } else { header = try open(loadOptions: "") }
        let sourceSize = PixelSize(width: header.width, height: header.pageHeight)
        let pages = options.limits.framesDecoded(of: header.pagesInFile)
        let animated = format.supportsAnimation && pages > 1 && !options.firstFrameOnly
        let frames = animated ? pages : 1
        try options.limits.check(frames: frames, frameSize: sourceSize)
        let tagged = header.int("orientation") ?? 1
        return Header(
            handle: header, size: sourceSize, pages: pages, frames: frames, animated: animated,
            orientation: (1...8).contains(tagged) ? tagged : 1,
            colorConversion: VipsColor.conversion(of: header, keepingProfile: options.keepsColorProfile)
        )
    }

    /// Decodes; `opened` is this buffer's header opened with no load options, if there is one.
    func run(opened: VipsImageHandle? = nil) throws(ImageError) -> Image {
        let checked = try checkedHeader(opened: opened)
        let sourceSize = checked.size
        let frames = checked.frames
        let animated = checked.animated
        let orientation = checked.orientation
        let convertsAtLoad = checked.colorConversion == .atLoad
        let linear: Int32 = options.resizesInLinearLight ? 1 : 0
        let upright = orientation >= 5
            ? PixelSize(width: sourceSize.height, height: sourceSize.width)
            : sourceSize
        let animationOption = Self.joined(animated ? "n=\(frames)" : "", embeddedThumbnailOption)
        let target = options.targetSize(for: upright, frames: frames)
        // An animation is thumbnailed frame by frame, so that no frame's edge takes pixels
        // of the next; one made on demand stays so.
        if animated, options.framesOnDemand || target != nil {
            let image = try framesOnDemand(frames: frames, sourceSize: sourceSize, orientation: orientation, upright: upright, target: target)
            return options.framesOnDemand ? image : try image.inMemory()
        }

        let loadedSize: PixelSize
        var result: VipsImageHandle
        // libvips' own thumbnail of the bytes resamples sRGB's values: in linear light it
        // would skip shrink-on-load, so such a decode shrinks first itself.
        if let target, !animated, !convertsAtLoad, !options.resizesInLinearLight, let shrink = libvipsThumbnailShrink(stored: sourceSize, uprightTarget: target, orientation: orientation) {
            // libvips' own thumbnail of the bytes loads them as the branch below would, but
            // with one line cache in front of the loader instead of two: a photo's variant
            // takes 1.4 % fewer instructions (cachegrind), half the region copies.
            result = try Vips.run("thumbnail") {
                wi_thumbnail_buffer(
                    bytes.baseAddress, bytes.count, $0, Int32(target.width), Int32(target.height), Int32(VIPS_SIZE_FORCE.rawValue),
                    options.strictness.vipsFailOn
                )
            }
            // libvips' JPEG loader rounds each side of a scaled decode down.
            loadedSize = PixelSize(width: sourceSize.width / shrink, height: sourceSize.height / shrink)
        } else if let target {
            let shrink = shrinkOnLoad(stored: sourceSize, uprightTarget: target, orientation: orientation)
            // Sequential access streams the pixels through the thumbnail without a
            // full-size intermediate copy (libvips' own thumbnail does the same).
            let loaded = try colorPrepared(open(loadOptions: Self.joined(Self.joined(animationOption, shrink), "access=sequential")), convertsAtLoad)
            // The exact size, not a box: libvips' thumbnail would round each loader's
            // pre-shrunk size its own way.
            result = try Vips.run("thumbnail") {
                wi_thumbnail_image(loaded.pointer, $0, Int32(target.width), Int32(target.height), Int32(VIPS_SIZE_FORCE.rawValue), 0, linear)
            }
            loadedSize = PixelSize(width: loaded.width, height: loaded.pageHeight)
        } else {
            // Rotating needs random access; otherwise the pixels stream straight into memory.
            let access = orientation == 1 || animated ? "access=sequential" : ""
            let loaded = try colorPrepared(open(loadOptions: Self.joined(animationOption, access)), convertsAtLoad)
            result = loaded
            if orientation != 1 && !animated {
                result = try Vips.run("autorotate") { wi_autorot(loaded.pointer, $0) }
            }
            loadedSize = PixelSize(width: loaded.width, height: loaded.pageHeight)
        }
        let decoded = try Self.finished(result, "cannot decode \(format.rawValue)", keepingProfile: options.keepsColorProfile)
        return Image(
            handle: decoded,
            format: format,
            frameCount: frames,
            frameDurations: animated ? Self.durations(decoded.intArray("delay"), frames: frames) : [],
            loopCount: animated ? max(0, decoded.int("loop") ?? 0) : 0,
            sourceOrientation: orientation,
            loadedPixelSize: loadedSize,
            sourcePixelSize: upright
        )
    }

    /// The animation as an image whose frames are decoded when they are read, from a copy
    /// of the bytes this decode reads (``ImageDecodeOptions/framesOnDemand``), each made
    /// `target` in size when there is one, as the whole decode makes every frame.
    private func framesOnDemand(
        frames: Int, sourceSize: PixelSize, orientation: Int, upright: PixelSize, target: PixelSize?
    ) throws(ImageError) -> Image {
        let shrink = target.map { shrinkOnLoad(stored: sourceSize, uprightTarget: $0, orientation: orientation) } ?? ""
        let reader = try VipsFrameReader(
            bytes: bytes, format: format, frames: frames, strictness: options.strictness, loadOptions: shrink,
            keepsColorProfile: options.keepsColorProfile
        )
        let keepsColorProfile = options.keepsColorProfile
        let linear: Int32 = options.resizesInLinearLight ? 1 : 0
        let format = format
        let decodeFrame = { @Sendable (index: Int) throws(ImageError) -> VipsImageHandle in
            let frame = try reader.frameHandle(at: index)
            guard let target else { return frame }
            let thumbnail = try Vips.run("thumbnail of frame \(index)") {
                wi_thumbnail_image(frame.pointer, $0, Int32(target.width), Int32(target.height), Int32(VIPS_SIZE_FORCE.rawValue), 0, linear)
            }
            return try Self.finished(
                thumbnail, "cannot decode frame \(index) of the \(frames)-frame \(format.rawValue)", keepingProfile: keepsColorProfile
            )
        }
        let first = try decodeFrame(0)
        return try Image.framesOnDemand(
            frameSize: PixelSize(width: first.width, height: first.height), frameCount: frames, bands: first.bands,
            interpretation: wi_interpretation(first.pointer), frameDurations: Self.durations(reader.delays, frames: frames),
            loopCount: reader.loopCount, format: format, sourceOrientation: orientation, loadedPixelSize: reader.frameSize,
            sourcePixelSize: upright, scale: 1
        ) { index throws(ImageError) -> VipsImageHandle in
            // The first frame, decoded for its size and bands, is kept: a reader starts with it.
            index == 0 ? first : try decodeFrame(index)
        }
    }

    /// The loader option that decodes the `stored` image at a reduced size on the way to
    /// `uprightTarget`, as libvips' own thumbnail chooses it: JPEG's DCT scaling leaving at
    /// least a factor of two for the final resample, WebP's scaled decode all the way.
    /// Shrink-on-load works on the stored image, before the EXIF rotation: orientations 5–8
    /// turn the target a quarter back first.
    private func shrinkOnLoad(stored: PixelSize, uprightTarget: PixelSize, orientation: Int) -> String {
        let target = Self.storedTarget(uprightTarget, orientation: orientation)
        switch format {
        // libjpeg's scaling averages gamma-encoded values: in linear light a JPEG is decoded
        // whole, as libvips' own thumbnail does in linear mode.
        case .jpeg where options.resizesInLinearLight:
            return ""
        case .jpeg:
            let shrink = Self.jpegShrink(stored: stored, target: target, rule: options.jpegShrink)
            return shrink > 1 ? "shrink=\(shrink)" : ""
        case .webp where Self.reduction(stored: stored, target: target) > 1:
            return "scale=\(Self.webpScale(stored: stored, target: target))"
        default:
            return ""
        }
    }

    /// The shrink-on-load factor of a still image whose thumbnail libvips' own
    /// `vips_thumbnail_buffer` makes from the bytes exactly as this decode would (the same
    /// loader options, the same resample): JPEG, whose shrink it chooses by the same rule,
    /// and PNG, which has none. `nil` for every other format, whose loaders it drives
    /// differently (WebP's scale, HEIF's embedded thumbnail, a TIFF pyramid's page), and for
    /// a JPEG shrunk by another rule than libvips' (``ImageDecodeOptions/JPEGShrink``).
    private func libvipsThumbnailShrink(stored: PixelSize, uprightTarget: PixelSize, orientation: Int) -> Int? {
        switch format {
        case .jpeg where options.jpegShrink == .leavingResample:
            Self.jpegShrink(stored: stored, target: Self.storedTarget(uprightTarget, orientation: orientation), rule: .leavingResample)
        case .png: 1
        default: nil
        }
    }

    /// `uprightTarget` in the stored image's orientation: turned a quarter back for 5–8.
    private static func storedTarget(_ uprightTarget: PixelSize, orientation: Int) -> PixelSize {
        orientation >= 5 ? PixelSize(width: uprightTarget.height, height: uprightTarget.width) : uprightTarget
    }

    /// How many times smaller `target` is than `stored`, the lesser of the two sides: the
    /// decoded image must cover the target both ways.
    private static func reduction(stored: PixelSize, target: PixelSize) -> Double {
        min(Double(stored.width) / Double(target.width), Double(stored.height) / Double(target.height))
    }

    /// libjpeg's DCT scaling on the way from `stored` to `target` by `rule`: leaving at
    /// least a factor of two for the final resample, or the largest that keeps the decoded
    /// image at least the target's size (libvips rounds each side of a scaled decode down).
    static func jpegShrink(stored: PixelSize, target: PixelSize, rule: ImageDecodeOptions.JPEGShrink) -> Int {
        let factor = reduction(stored: stored, target: target)
        switch rule {
        case .leavingResample: return factor >= 16 ? 8 : factor >= 8 ? 4 : factor >= 4 ? 2 : 1
        case .toTarget: return factor >= 8 ? 8 : factor >= 4 ? 4 : factor >= 2 ? 2 : 1
        }
    }

    /// The scale at which libvips' WebP loader decodes `stored` to exactly `target`: it
    /// rounds each side of the scaled size to the nearest integer, halves to even, so the
    /// scale is taken from the middle of the range that gives both sides. When no scale
    /// gives both, the smallest that covers the target, which the thumbnail then shrinks
    /// a little.
    static func webpScale(stored: PixelSize, target: PixelSize) -> Double {
        let (width, height) = (Double(stored.width), Double(stored.height))
        let (targetWidth, targetHeight) = (Double(target.width), Double(target.height))
        let lowest = max((targetWidth - 0.5) / width, (targetHeight - 0.5) / height)
        let highest = min((targetWidth + 0.5) / width, (targetHeight + 0.5) / height)
        if lowest < highest { return (lowest + highest) / 2 }
        return min(1, max(targetWidth / width, targetHeight / height))
    }

    /// `loaded` in sRGB when its colours are converted as soon as it is loaded
    /// (``VipsColor/Conversion/atLoad``), else itself.
    private func colorPrepared(_ loaded: VipsImageHandle, _ convertsAtLoad: Bool) throws(ImageError) -> VipsImageHandle {
        convertsAtLoad ? try VipsColor.toSRGB(loaded) : loaded
    }

    /// `image` in sRGB (converted with its profile unless `keepingProfile`, which keeps an
    /// RGB or grey image's own), normalised (``normalise(_:)``) and computed into memory; a
    /// failure throws `badImageData` with `what` and libvips' reason.
    static func finished(_ image: VipsImageHandle, _ what: String, keepingProfile: Bool) throws(ImageError) -> VipsImageHandle {
        var image = image
        // The common case, an 8-bit RGB photo in a profile of its own, is converted in
        // memory with a transform kept for its profile: libvips' own makes a transform for
        // every image, which costs about what a thumbnail's pixels do.
        var inMemory: ICCProfile?
        switch VipsColor.conversion(of: image, keepingProfile: keepingProfile) {
        case .none:
            if !keepingProfile, wi_has_icc(image.pointer) != 0, VipsColor.usableProfile(of: image) == nil {
                // A profile that does not describe these pixels says nothing true about them.
                image = try VipsColor.withoutProfile(image, failure: .badImageData)
            }
        case .atEnd:
            if let profile = VipsColor.usableProfile(of: image), VipsColor.convertsInMemory(image, profile: profile) {
                inMemory = profile
            } else {
                image = try VipsColor.toSRGB(image)
            }
        case .atLoad:
            image = try VipsColor.toSRGB(image)
        }
        let normalised = try normalise(image)
        guard let memory = vips_image_copy_memory(normalised.pointer) else {
            throw .badImageData("\(what): \(Vips.takeError())")
        }
        let finished = VipsImageHandle(memory)
        // The copy is this decode's own unless libvips handed back an image that was in
        // memory already, which others may hold.
        let owned = memory != normalised.pointer
        guard let inMemory, !(owned && VipsColor.convertInMemory(finished, from: inMemory)) else { return finished }
        // A profile the colour engine cannot read directly: libvips' conversion, which falls back to sRGB.
        let converted = try normalise(try VipsColor.toSRGB(finished))
        guard let copy = vips_image_copy_memory(converted.pointer) else {
            throw .badImageData("\(what): \(Vips.takeError())")
        }
        return VipsImageHandle(copy)
    }

    /// Brings the pixels to 8-bit sRGB (or 8-bit grey), the form every encoder and
    /// transformer expects.
    static func normalise(_ image: VipsImageHandle) throws(ImageError) -> VipsImageHandle {
        let interpretation = wi_interpretation(image.pointer)
        let isEightBit = wi_band_format(image.pointer) == Int32(VIPS_FORMAT_UCHAR.rawValue)
        let isDisplayable = interpretation == Int32(VIPS_INTERPRETATION_sRGB.rawValue)
            || interpretation == Int32(VIPS_INTERPRETATION_B_W.rawValue)
        if isEightBit && isDisplayable { return image }
        var converted = image
        if !isDisplayable || !isEightBit {
            let grey = interpretation == Int32(VIPS_INTERPRETATION_GREY16.rawValue)
                || interpretation == Int32(VIPS_INTERPRETATION_B_W.rawValue)
            if grey {
                converted = try Vips.run("grey conversion") { wi_colourspace(image.pointer, $0, Int32(VIPS_INTERPRETATION_B_W.rawValue)) }
            } else {
                converted = try Vips.run("colour conversion") { wi_colourspace(image.pointer, $0, Int32(VIPS_INTERPRETATION_sRGB.rawValue)) }
            }
        }
        if wi_band_format(converted.pointer) != Int32(VIPS_FORMAT_UCHAR.rawValue) {
            let source = converted
            converted = try Vips.run("cast") { wi_cast_uchar(source.pointer, $0) }
        }
        return converted
    }

    private func open(loadOptions: String) throws(ImageError) -> VipsImageHandle {
        let optionString = loadOptions.isEmpty ? "" : "[\(loadOptions)]"
        guard let pointer = wi_load_buffer(bytes.baseAddress, bytes.count, optionString, options.strictness.vipsFailOn) else {
            throw .badImageData("cannot read \(format.rawValue) header: \(Vips.takeError())")
        }
        return VipsImageHandle(pointer)
    }

    /// The HEIF loader's option that reads the embedded thumbnail (the main image when
    /// there is none), when asked for.
    private var embeddedThumbnailOption: String {
        options.preferEmbeddedThumbnail && [.heic, .heif, .avif].contains(format) ? "thumbnail=true" : ""
    }

    private static func joined(_ first: String, _ second: String) -> String {
        [first, second].filter { !$0.isEmpty }.joined(separator: ",")
    }

    /// Frame delays in seconds. Delays under 11 ms mean "as fast as possible", which
    /// browsers show at 100 ms; WebImage does the same.
    static func durations(_ delays: [Int]?, frames: Int) -> [Double] {
        let delays = delays ?? []
        return (0..<frames).map { index in
            let milliseconds = index < delays.count ? delays[index] : 0
            return milliseconds < 11 ? 0.1 : Double(milliseconds) / 1000
        }
    }
}
