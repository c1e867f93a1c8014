import WebImage

/// The sizes and rectangles of every step imgproxy's pipeline takes for one source size,
/// computed before any pixel is touched: rotate, crop, resize, crop to the result, extend.
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

    /// Where the image sits inside a larger canvas.
    struct Placement: Sendable, Hashable {
        var canvas: PixelSize
        var x: Int
        var y: Int
    }

    /// Clockwise degrees applied first (0, 90, 180, 270).
    var rotation = 0
    /// The size after rotation.
    var rotatedSize: PixelSize
    /// The `crop` option's area, in rotated source pixels.
    var sourceCut: Cut?
    /// The size the (cropped) image is scaled to, `nil` when it keeps its size.
    var resize: PixelSize?
    /// The `fill` crop of the resized image.
    var resultCut: Cut?
    /// The padding of `extend`.
    var padding: Placement?
    /// The final size.
    var outputSize: PixelSize

    init(options: ProcessingOptions, sourceSize: PixelSize) {
        let source = PixelSize(width: max(sourceSize.width, 1), height: max(sourceSize.height, 1))
        rotation = options.rotate
        rotatedSize = rotation == 90 || rotation == 270 ? PixelSize(width: source.height, height: source.width) : source
        var current = rotatedSize

        if let crop = options.crop {
            let width = Self.cropLength(crop.width, of: current.width)
            let height = Self.cropLength(crop.height, of: current.height)
            if width != current.width || height != current.height {
                let cut = Self.cut(PixelSize(width: width, height: height), in: current, gravity: crop.gravity ?? options.gravity, offsetScale: 1)
                sourceCut = cut
                current = cut.size
            }
        }

        let target = PixelSize(width: Self.pixels(Double(options.width) * options.dpr),
                               height: Self.pixels(Double(options.height) * options.dpr))
        let type = Self.effectiveType(options.resizingType, size: current, target: target)
        let resized = Self.resized(current, to: target, type: type, enlarge: options.enlarge)
        if resized != current {
            resize = resized
            current = resized
        }

        if (type == .fill || type == .fillDown), target.width > 0, target.height > 0 {
            var wanted = PixelSize(width: min(target.width, current.width), height: min(target.height, current.height))
            if type == .fillDown, current.width < target.width || current.height < target.height {
                // Too small to fill: keep the requested aspect ratio at the largest size that fits.
                let ratio = min(Double(current.width) / Double(target.width), Double(current.height) / Double(target.height))
                wanted = PixelSize(width: min(current.width, max(1, Self.pixels(Double(target.width) * ratio))),
                                   height: min(current.height, max(1, Self.pixels(Double(target.height) * ratio))))
            }
            if wanted != current {
                let cut = Self.cut(wanted, in: current, gravity: options.gravity, offsetScale: options.dpr)
                resultCut = cut
                current = cut.size
            }
        }

        if options.extend {
            let canvas = PixelSize(width: max(current.width, target.width), height: max(current.height, target.height))
            if canvas != current {
                let origin = Self.origin(of: current, in: canvas, gravity: options.extendGravity, offsetScale: options.dpr)
                padding = Placement(canvas: canvas, x: origin.x, y: origin.y)
                current = canvas
            }
        }
        outputSize = current
    }

    /// `auto` resolved: `fill` when source and target share an orientation, else `fit`.
    static func effectiveType(_ type: ResizingType, size: PixelSize, target: PixelSize) -> ResizingType {
        guard type == .auto else { return type }
        guard target.width > 0, target.height > 0 else { return .fit }
        return (size.width >= size.height) == (target.width >= target.height) ? .fill : .fit
    }

    /// A `crop` length: 0 the whole length, below 1 a fraction of it, else pixels; within 1…length.
    static func cropLength(_ value: Double, of length: Int) -> Int {
        let pixels = value == 0 ? length : value < 1 ? pixels(value * Double(length)) : pixels(value, .down)
        return min(max(pixels, 1), length)
    }

    /// The size `size` scales to for `target` (0 in a dimension: derived or kept).
    static func resized(_ size: PixelSize, to target: PixelSize, type: ResizingType, enlarge: Bool) -> PixelSize {
        guard target.width > 0 || target.height > 0 else { return size }
        let widthScale = target.width > 0 ? Double(target.width) / Double(size.width) : nil
        let heightScale = target.height > 0 ? Double(target.height) / Double(size.height) : nil
        var scaleX: Double
        var scaleY: Double
        switch type {
        case .force:
            scaleX = widthScale ?? 1
            scaleY = heightScale ?? 1
        case .fit, .fill, .fillDown, .auto:
            let scales = [widthScale, heightScale].compactMap { $0 }
            let uniform = (type == .fit ? scales.min() : scales.max()) ?? 1
            scaleX = uniform
            scaleY = uniform
        }
        if !enlarge {
            scaleX = min(scaleX, 1)
            scaleY = min(scaleY, 1)
        }
        // Snap the constrained sides exactly to the target: no 299-pixel results from rounding.
        func length(_ original: Int, _ scale: Double, _ wanted: Int?) -> Int {
            let exact = Double(original) * scale
            if let wanted, abs(exact - Double(wanted)) < 0.5 { return wanted }
            return max(1, pixels(exact))
        }
        return PixelSize(width: length(size.width, scaleX, target.width > 0 ? target.width : nil),
                         height: length(size.height, scaleY, target.height > 0 ? target.height : nil))
    }

    /// The cut of `size` out of `image` at `gravity`.
    static func cut(_ size: PixelSize, in image: PixelSize, gravity: ProxyGravity, offsetScale: Double) -> Cut {
        if gravity == .smart { return .smart(width: size.width, height: size.height) }
        let origin = origin(of: size, in: image, gravity: gravity, offsetScale: offsetScale)
        return .rect(x: origin.x, y: origin.y, width: size.width, height: size.height)
    }

    /// The top-left corner of an `inner` box placed in `outer` at `gravity`, kept inside `outer`.
    /// Offsets of 1 or more pixels are multiplied by `offsetScale` (the dpr); smaller ones
    /// are fractions of the outer size. Positive offsets move away from the anchored edge.
    static func origin(of inner: PixelSize, in outer: PixelSize, gravity: ProxyGravity, offsetScale: Double) -> (x: Int, y: Int) {
        let freeX = Double(outer.width - inner.width)
        let freeY = Double(outer.height - inner.height)
        // Centred boxes lean right/down by half a pixel when the free space is odd, as in imgproxy.
        let centreX = ((freeX + 1) / 2).rounded(.down)
        let centreY = ((freeY + 1) / 2).rounded(.down)
        var x: Double
        var y: Double
        switch gravity {
        case .smart:
            x = centreX
            y = centreY
        case .focusPoint(let fx, let fy):
            x = fx * Double(outer.width) - Double(inner.width) / 2
            y = fy * Double(outer.height) - Double(inner.height) / 2
        case .anchor(let anchor, let xOffset, let yOffset):
            let dx = abs(xOffset) < 1 ? xOffset * Double(outer.width) : xOffset * offsetScale
            let dy = abs(yOffset) < 1 ? yOffset * Double(outer.height) : yOffset * offsetScale
            switch anchor {
            case .west, .northWest, .southWest: x = dx
            case .east, .northEast, .southEast: x = freeX - dx
            case .center, .north, .south: x = centreX + dx
            }
            switch anchor {
            case .north, .northWest, .northEast: y = dy
            case .south, .southWest, .southEast: y = freeY - dy
            case .center, .west, .east: y = centreY + dy
            }
        }
        let clampedX = min(max(pixels(x, .down), 0), max(pixels(freeX), 0))
        let clampedY = min(max(pixels(y, .down), 0), max(pixels(freeY), 0))
        return (clampedX, clampedY)
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
}
