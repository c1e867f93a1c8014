import CVips

/// Resizes to a box in one of four ``ResizeMode``s, with libvips' thumbnail machinery
/// (Lanczos 3, alpha premultiplied while resampling, an embedded ICC profile honoured).
///
/// A width or height of 0 is derived from the other, keeping the aspect ratio (then every
/// mode acts as ``ResizeMode/fit``); both 0 keeps the original size. Without `enlarge`, an
/// image smaller than the box is not upscaled: ``ResizeMode/fit`` and ``ResizeMode/fill``
/// results are never larger than the source. An animation is resized frame by frame.
///
/// Key: `resize-<mode>-<W>x<H>`, then the gravity for the fill modes and `-up` when
/// enlarging: `resize-fill-400x300-ce`, `resize-fit-400x0-up`.
public struct ResizeTransformer: ImageTransformer {
    /// The box; 0 in one dimension derives it from the other.
    public let size: PixelSize
    /// How the image fits the box.
    public let mode: ResizeMode
    /// Which part a fill keeps (ignored by fit and force).
    public let gravity: Gravity
    /// Whether an image smaller than the box may be upscaled (``ResizeMode/fillDown``
    /// never upscales).
    public let enlarge: Bool
    /// Whether the resample works in linear light instead of on sRGB's gamma-encoded values:
    /// fine light detail on dark ground keeps its brightness, at some cost (float pixels).
    public let linearLight: Bool

    /// Creates a resize to `size` in `mode`; see the type's description for the rules.
    public init(size: PixelSize, mode: ResizeMode = .fit, gravity: Gravity = .center, enlarge: Bool = false, linearLight: Bool = false) {
        self.size = size
        self.mode = mode
        self.gravity = gravity
        self.enlarge = enlarge
        self.linearLight = linearLight
    }

    /// `resize-<mode>-<W>x<H>`, then the gravity for the fill modes, `-up` when enlarging and
    /// `-linear` in linear light.
    public var key: String {
        var key = "resize-\(mode.rawValue)-\(TransformKey.size(size))"
        if mode == .fill || mode == .fillDown { key += "-" + gravity.keyComponent }
        if enlarge, mode != .fillDown { key += "-up" }
        if linearLight { key += "-linear" }
        return key
    }

    /// ``linearLight``: a shrink-on-load decode for this resize resamples as it does.
    public var resizesInLinearLight: Bool { linearLight }

    /// Resizes every frame to ``size`` in ``mode``, by the rules of the type's description;
    /// a size of 0 by 0 returns the image as it is.
    public func transform(_ image: Image) throws(ImageError) -> Image {
        guard size.width >= 0, size.height >= 0 else {
            throw .invalidTransform("resize to \(size): width and height must be 0 or more (0 derives one from the other)")
        }
        try gravity.validate()
        let source = image.pixelSize
        guard size != .zero else { return image }
        let plan = Self.plan(source: source, box: size, mode: mode, enlarge: enlarge)
        if plan.resized == source, plan.crop == source { return image }
        try VipsTransform.checkOutput(plan.resized, frames: image.frameCount, by: "resize \(key)")
        // libvips' attention search would pick a different region in each frame.
        let gravity: Gravity = image.isAnimated && self.gravity == .smart ? .center : self.gravity
        return try image.transformingFrames { frame throws(ImageError) in
            try Self.resize(frame, plan: plan, gravity: gravity, linear: linearLight)
        }
    }

    /// The size the resize scales the source to before any crop, when that shrinks the
    /// source to half its size or less: decoding straight to it (libvips' shrink-on-load)
    /// leaves only the crop, if any, to do, and gives the same result size as a full
    /// decode would. `nil` otherwise.
    public func shrinkOnLoadSize(forSourceSize sourceSize: PixelSize) -> PixelSize? {
        guard size.width >= 0, size.height >= 0, size != .zero, sourceSize.width > 0, sourceSize.height > 0 else { return nil }
        let resized = Self.plan(source: sourceSize, box: size, mode: mode, enlarge: enlarge).resized
        let scale = max(Double(resized.width) / Double(sourceSize.width), Double(resized.height) / Double(sourceSize.height))
        return scale <= 0.5 ? resized : nil
    }

    /// The box the resize ends in for an image of `inputSize` (its own size for a box of 0
    /// by 0).
    public func outputSize(forInputSize inputSize: PixelSize) -> PixelSize? {
        guard size.width >= 0, size.height >= 0, inputSize.width > 0, inputSize.height > 0 else { return nil }
        guard size != .zero else { return inputSize }
        return Self.plan(source: inputSize, box: size, mode: mode, enlarge: enlarge).crop
    }

    /// The scaled image, before its crop to the box.
    public func largestSize(forInputSize inputSize: PixelSize) -> PixelSize {
        guard size.width >= 0, size.height >= 0, size != .zero, inputSize.width > 0, inputSize.height > 0 else { return inputSize }
        return Self.plan(source: inputSize, box: size, mode: mode, enlarge: enlarge).resized
    }

    /// What a resize does, in pixels: scale the source to `resized`, then cut `crop` out of
    /// it at the gravity.
    struct Plan: Equatable {
        /// Whether the thumbnail may upscale.
        var enlarge: Bool
        /// The scaled size before cropping.
        var resized: PixelSize
        /// The final size.
        var crop: PixelSize
    }

    static func plan(source: PixelSize, box: PixelSize, mode: ResizeMode, enlarge: Bool) -> Plan {
        let (w, h) = (Double(source.width), Double(source.height))
        func scaled(_ scale: Double) -> PixelSize {
            PixelSize(width: max(1, Int((w * scale).rounded())), height: max(1, Int((h * scale).rounded())))
        }
        // A box shrunk, keeping its aspect ratio, until no dimension exceeds the source's.
        func boxWithin(_ box: PixelSize) -> PixelSize {
            let shrink = min(1, w / Double(box.width), h / Double(box.height))
            guard shrink < 1 else { return box }
            return PixelSize(
                width: max(1, Int((Double(box.width) * shrink).rounded())),
                height: max(1, Int((Double(box.height) * shrink).rounded()))
            )
        }
        if box.width == 0 || box.height == 0 || mode == .fit {
            var scale = box.width == 0 ? Double(box.height) / h
                : box.height == 0 ? Double(box.width) / w
                : min(Double(box.width) / w, Double(box.height) / h)
            if !enlarge { scale = min(1, scale) }
            let resized = scale == 1 ? source : scaled(scale)
            // The planned size exactly (not libvips' own rounding of a box), so that a
            // shrink-on-load decode to it and a full-size decode give the same result.
            return Plan(enlarge: enlarge, resized: resized, crop: resized)
        }
        switch mode {
        case .fill, .fillDown:
            let target = mode == .fillDown ? boxWithin(box) : box
            let mayEnlarge = enlarge && mode == .fill
            var scale = max(Double(target.width) / w, Double(target.height) / h)
            if !mayEnlarge { scale = min(1, scale) }
            var resized = scale == 1 ? source : scaled(scale)
            // Rounding must never leave the scaled image short of the box it covers.
            if scale != 1 {
                if Double(target.width) / w >= Double(target.height) / h {
                    resized.width = target.width
                    resized.height = max(resized.height, target.height)
                } else {
                    resized.height = target.height
                    resized.width = max(resized.width, target.width)
                }
            }
            let crop = PixelSize(width: min(target.width, resized.width), height: min(target.height, resized.height))
            return Plan(enlarge: mayEnlarge, resized: resized, crop: crop)
        case .force, .fit:
            let target = enlarge ? box : boxWithin(box)
            return Plan(enlarge: enlarge, resized: target, crop: target)
        }
    }

    private static func resize(_ frame: VipsImageHandle, plan: Plan, gravity: Gravity, linear: Bool) throws(ImageError) -> VipsImageHandle {
        let none = Int32(VIPS_INTERESTING_NONE.rawValue)
        // A centred or smart fill is one libvips thumbnail with a crop, as libvips' own
        // thumbnail does it; other gravities resize, then cut at the gravity.
        if plan.crop != plan.resized, gravity == .center || gravity == .smart {
            let interesting = gravity == .smart ? VIPS_INTERESTING_ATTENTION : VIPS_INTERESTING_CENTRE
            let size = plan.enlarge ? VIPS_SIZE_BOTH : VIPS_SIZE_DOWN
            return try Vips.run("resizing to fill \(plan.crop)", failure: .invalidTransform) {
                wi_thumbnail_crop(
                    frame.pointer, $0, Int32(plan.crop.width), Int32(plan.crop.height), Int32(size.rawValue), Int32(interesting.rawValue),
                    linear ? 1 : 0
                )
            }
        }
        var resized = frame
        if plan.resized != PixelSize(width: frame.width, height: frame.height) {
            resized = try Vips.run("resizing to \(plan.resized)", failure: .invalidTransform) {
                wi_thumbnail_crop(
                    frame.pointer, $0, Int32(plan.resized.width), Int32(plan.resized.height), Int32(VIPS_SIZE_FORCE.rawValue), none, linear ? 1 : 0
                )
            }
        }
        let offset = gravity.offset(of: plan.crop, in: plan.resized)
        return try VipsTransform.extract(resized, PixelRect(x: offset.x, y: offset.y, width: plan.crop.width, height: plan.crop.height))
    }
}
