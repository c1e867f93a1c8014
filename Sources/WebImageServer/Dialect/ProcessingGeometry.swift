import WebImage

/// The sizes and rectangles of every step imgproxy's pipeline takes for one source size,
/// computed before any pixel is touched, with imgproxy's arithmetic (its `calcScale`,
/// `calcSizes`, `limitScale` and `calcPosition`): orient, rotate and flip, crop, resize,
/// crop to the result, extend, extend to the aspect ratio, pad.
///
/// All sizes after ``rotation`` refer to the rotated image, so a requested 300×200 is
/// 300×200 in the output whatever the angle (imgproxy swaps its sizes the same way).
struct ProcessingGeometry: Sendable, Hashable {
    /// A rectangle inside an image, or a smart crop of a given size.
    enum Cut: Sendable, Hashable {
        case rect(x: Int, y: Int, width: Int, height: Int)
        case smart(width: Int, height: Int)

        var size: PixelSize {
            switch self {
            case .rect(_, _, let width, let height), .smart(let width, let height): PixelSize(width: width, height: height)
            }
        }
    }

    /// Where the image sits on a canvas. A canvas narrower or lower than the image cuts it
    /// (the image then sits at 0 on that axis), as libvips' embed does.
    struct Placement: Sendable, Hashable {
        var canvas: PixelSize
        var x: Int
        var y: Int
    }

    /// The EXIF orientation taken back off an upright image (`auto_rotate:0`); 1 when none.
    var unorientation = 1
    /// Clockwise degrees applied after that (0, 90, 180, 270).
    var rotation = 0
    /// Mirror left–right after the rotation.
    var flipHorizontal = false
    /// Mirror top–bottom after the rotation.
    var flipVertical = false
    /// The size after orientation, rotation and flips.
    var rotatedSize: PixelSize
    /// The `crop` option's area, in rotated source pixels.
    var sourceCut: Cut?
    /// The size the (cropped) image is scaled to, `nil` when it keeps its size.
    var resize: PixelSize?
    /// The crop of the resized image to the requested size (`fill`, `fill-down`, and any
    /// result larger than the request, e.g. after `min-width`).
    var resultCut: Cut?
    /// The canvas of `extend`.
    var padding: Placement?
    /// The canvas of `extend_aspect_ratio`.
    var aspectPadding: Placement?
    /// The `padding` option's border, around everything else.
    var border: Placement?
    /// The dpr after imgproxy's adjustments (never enlarging without `enlarge`), which
    /// scales the requested size, pixel offsets and padding.
    var dprScale: Double
    /// The final size.
    var outputSize: PixelSize

    /// The geometry for an upright image of `sourceSize` whose EXIF `orientation` (1–8)
    /// is applied by the decoder.
    init(options: ProcessingOptions, sourceSize: PixelSize, orientation: Int = 1) {
        var source = PixelSize(width: max(sourceSize.width, 1), height: max(sourceSize.height, 1))
        if !options.autoRotate, (2...8).contains(orientation) {
            unorientation = orientation
            if orientation >= 5 { source = PixelSize(width: source.height, height: source.width) }
        }
        rotation = options.rotate
        flipHorizontal = options.flipHorizontal
        flipVertical = options.flipVertical
        rotatedSize = rotation == 90 || rotation == 270 ? PixelSize(width: source.height, height: source.width) : source
        var current = rotatedSize

        // imgproxy's CalcParams.
        let cropWidth = Self.cropLength(options.crop?.width ?? 0, of: current.width)
        let cropHeight = Self.cropLength(options.crop?.height ?? 0, of: current.height)
        let scaled = PixelSize(width: Self.minNonZero(cropWidth, current.width), height: Self.minNonZero(cropHeight, current.height))
        var scale = Scale(options: options, size: scaled)
        var sizes = Sizes(options: options, size: scaled, scale: scale)
        if let limit = options.limits.maxResultDimension, limit > 0 {
            scale.limit(to: limit, options: options, size: scaled, sizes: &sizes)
        }
        dprScale = scale.dpr

        if cropWidth > 0 || cropHeight > 0, scaled != current {
            let cut = Self.cut(scaled, in: current, gravity: options.crop?.gravity ?? options.gravity, offsetScale: 1)
            sourceCut = cut
            current = cut.size
        }
        if scale.width != 1 || scale.height != 1 {
            let resized = PixelSize(width: max(1, sizes.scaled.width), height: max(1, sizes.scaled.height))
            if resized != current {
                resize = resized
                current = resized
            }
        }
        if sizes.resultCrop.width > 0 || sizes.resultCrop.height > 0 {
            let wanted = PixelSize(width: Self.minNonZero(sizes.resultCrop.width, current.width), height: Self.minNonZero(sizes.resultCrop.height, current.height))
            if wanted.width < current.width || wanted.height < current.height {
                let cut = Self.cut(wanted, in: current, gravity: options.gravity, offsetScale: scale.dpr)
                resultCut = cut
                current = cut.size
            }
        }
        // A canvas is no longer than the largest result side, unless the image itself is.
        // imgproxy's limit is worked out before the image is cut to size, and an image held at
        // its one-pixel minimum can leave an extended aspect ratio's canvas past the limit
        // (`rs:fit:10000000:1/exar:1`: a line 10,000,000 pixels long); the limit bounds it.
        let limit = options.limits.maxResultDimension.flatMap { $0 > 0 ? $0 : nil }
        func bounded(_ canvas: PixelSize) -> PixelSize {
            guard let limit else { return canvas }
            return PixelSize(width: min(canvas.width, max(limit, current.width)), height: min(canvas.height, max(limit, current.height)))
        }
        if options.extend, let placement = Self.embedding(current, to: bounded(sizes.target), gravity: options.extendGravity, offsetScale: scale.dpr) {
            padding = placement
            current = placement.canvas
        }
        if options.extendAspectRatio, sizes.aspect.width > 0, sizes.aspect.height > 0,
           let placement = Self.embedding(current, to: bounded(sizes.aspect), gravity: options.extendAspectRatioGravity, offsetScale: scale.dpr) {
            aspectPadding = placement
            current = placement.canvas
        }
        if let border = options.padding {
            let top = Self.scaledToEven(border.top, scale.dpr)
            let right = Self.scaledToEven(border.right, scale.dpr)
            let bottom = Self.scaledToEven(border.bottom, scale.dpr)
            let left = Self.scaledToEven(border.left, scale.dpr)
            let canvas = PixelSize(width: min(current.width + left + right, Self.maxCoordinate),
                                   height: min(current.height + top + bottom, Self.maxCoordinate))
            if canvas != current {
                self.border = Placement(canvas: canvas, x: left, y: top)
                current = canvas
            }
        }
        outputSize = current
    }

    /// imgproxy's `extendImage`: `image` on a canvas of `target` (0 or less: the image's own
    /// length) at `gravity`; `nil` when the target fits inside the image.
    static func embedding(_ image: PixelSize, to target: PixelSize, gravity: ProxyGravity, offsetScale: Double) -> Placement? {
        guard target.width > image.width || target.height > image.height else { return nil }
        let canvas = PixelSize(width: target.width > 0 ? target.width : image.width, height: target.height > 0 ? target.height : image.height)
        let origin = origin(of: image, in: canvas, gravity: gravity, offsetScale: offsetScale)
        return Placement(canvas: canvas, x: origin.x, y: origin.y)
    }

    /// A `crop` length (imgproxy's `CalcCropSize`): 0 for none, 1 or more is pixels
    /// (whole ones), below 1 a fraction of the length (at least one pixel).
    static func cropLength(_ value: Double, of length: Int) -> Int {
        if value == 0 { return 0 }
        if value >= 1 { return pixels(value, .towardZero) }
        return max(1, scaled(length, value))
    }

    /// The cut of `size` out of `image` at `gravity`.
    static func cut(_ size: PixelSize, in image: PixelSize, gravity: ProxyGravity, offsetScale: Double) -> Cut {
        if gravity == .smart { return .smart(width: size.width, height: size.height) }
        let origin = origin(of: size, in: image, gravity: gravity, offsetScale: offsetScale)
        return .rect(x: origin.x, y: origin.y, width: size.width, height: size.height)
    }

    /// imgproxy's `calcPosition`: the top-left corner of an `inner` box placed in `outer` at
    /// `gravity`, kept inside `outer` (at 0 where `inner` is the larger). Offsets of 1 or
    /// more pixels are multiplied by `offsetScale` (the dpr); smaller ones are fractions of
    /// the outer size. Positive offsets move away from the anchored edge. Halves round to even.
    static func origin(of inner: PixelSize, in outer: PixelSize, gravity: ProxyGravity, offsetScale: Double) -> (x: Int, y: Int) {
        var x: Int
        var y: Int
        switch gravity {
        case .focusPoint(let fx, let fy):
            x = scaledToEven(outer.width, fx) - inner.width / 2
            y = scaledToEven(outer.height, fy) - inner.height / 2
        case .smart:
            x = shrunkToEven(outer.width - inner.width + 1, 2)
            y = shrunkToEven(outer.height - inner.height + 1, 2)
        case .anchor(let anchor, let xOffset, let yOffset):
            let dx = abs(xOffset) >= 1 ? pixels(xOffset * offsetScale, .toNearestOrEven) : scaledToEven(outer.width, xOffset)
            let dy = abs(yOffset) >= 1 ? pixels(yOffset * offsetScale, .toNearestOrEven) : scaledToEven(outer.height, yOffset)
            switch anchor {
            case .west, .northWest, .southWest: x = dx
            case .east, .northEast, .southEast: x = outer.width - inner.width - dx
            case .center, .north, .south: x = shrunkToEven(outer.width - inner.width + 1, 2) + dx
            }
            switch anchor {
            case .north, .northWest, .northEast: y = dy
            case .south, .southWest, .southEast: y = outer.height - inner.height - dy
            case .center, .west, .east: y = shrunkToEven(outer.height - inner.height + 1, 2) + dy
            }
        }
        return (max(0, min(x, outer.width - inner.width)), max(0, min(y, outer.height - inner.height)))
    }

    /// libvips' largest coordinate (VIPS_MAX_COORD): no image dimension exceeds it.
    static let maxCoordinate = 10_000_000

    /// `value` rounded to whole pixels, kept within ±``maxCoordinate`` (0 when not a
    /// number), so options set in code to absurd values cannot trap a conversion.
    static func pixels(_ value: Double, _ rule: FloatingPointRoundingRule = .toNearestOrAwayFromZero) -> Int {
        guard value.isFinite else { return 0 }
        let limit = Double(maxCoordinate)
        return Int(min(max(value.rounded(rule), -limit), limit))
    }

    /// imgproxy's `imath.Scale`: `length × scale` rounded half away from zero; 0 stays 0.
    static func scaled(_ length: Int, _ scale: Double) -> Int {
        length == 0 ? 0 : pixels(Double(length) * scale)
    }

    /// imgproxy's `imath.ScaleToEven`: `length × scale` rounded half to even; 0 stays 0.
    static func scaledToEven(_ length: Int, _ scale: Double) -> Int {
        length == 0 ? 0 : pixels(Double(length) * scale, .toNearestOrEven)
    }

    /// imgproxy's `imath.ShrinkToEven`: `length ÷ shrink` rounded half to even; 0 stays 0.
    static func shrunkToEven(_ length: Int, _ shrink: Double) -> Int {
        length == 0 ? 0 : pixels(Double(length) / shrink, .toNearestOrEven)
    }

    /// imgproxy's `imath.MinNonZero`: the smaller of two lengths, ignoring a 0.
    static func minNonZero(_ a: Int, _ b: Int) -> Int {
        a == 0 ? b : b == 0 ? a : min(a, b)
    }
}
