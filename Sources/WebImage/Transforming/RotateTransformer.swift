import CVips
import Foundation

/// Rotates the image clockwise by an angle in degrees.
///
/// Multiples of 90° are lossless turns (`vips_rot`) and ignore `fitSize` and `background`.
/// Other angles resample (bicubic, alpha premultiplied) with `vips_rotate`: with `fitSize`
/// the canvas grows to hold the whole rotated image and the corners it uncovers take the
/// background colour; without it the result keeps the original size, centred, and the
/// rotated image's corners are cut off. A background that is not opaque gives the image
/// an alpha channel. Angles are taken modulo 360 (−90 is 270).
///
/// Key: `rotate-<angle>` for multiples of 90, else `rotate-<angle>-fit|keep-<rrggbbaa>`:
/// `rotate-270`, `rotate-45-fit-00000000`, `rotate-12p5-keep-ffffffff`.
public struct RotateTransformer: ImageTransformer {
    /// The angle in degrees, clockwise.
    public let degrees: Double
    /// Whether the canvas grows to hold the whole rotated image.
    public let fitSize: Bool
    /// The colour of the uncovered corners.
    public let background: ImageColor

    /// Creates a clockwise rotation by `degrees`.
    public init(degrees: Double, fitSize: Bool = true, background: ImageColor = .transparent) {
        self.degrees = degrees
        self.fitSize = fitSize
        self.background = background
    }

    /// The angle in 0..<360.
    var normalisedDegrees: Double {
        guard degrees.isFinite else { return degrees }
        let remainder = degrees.truncatingRemainder(dividingBy: 360)
        let positive = remainder < 0 ? remainder + 360 : remainder
        // -0 and a tiny negative angle that rounds up to 360 are both no turn at all.
        return positive >= 360 || positive == 0 ? 0 : positive
    }

    /// The lossless turn for a multiple of 90°, else `nil`.
    private var rightAngle: VipsAngle? {
        switch normalisedDegrees {
        case 0: VIPS_ANGLE_D0
        case 90: VIPS_ANGLE_D90
        case 180: VIPS_ANGLE_D180
        case 270: VIPS_ANGLE_D270
        default: nil
        }
    }

    /// `rotate-<angle>` for a multiple of 90°, else `rotate-<angle>-fit|keep-<rrggbbaa>`, the
    /// angle taken modulo 360.
    public var key: String {
        let angle = TransformKey.number(normalisedDegrees)
        if rightAngle != nil { return "rotate-\(angle)" }
        return "rotate-\(angle)-\(fitSize ? "fit" : "keep")-\(background.hex)"
    }

    /// Rotates every frame clockwise by ``degrees``: a lossless turn for a multiple of 90°, else
    /// resampled on a canvas ``fitSize`` and ``background`` decide.
    public func transform(_ image: Image) throws(ImageError) -> Image {
        guard degrees.isFinite else {
            throw .invalidTransform("rotation by \(degrees)°: give a finite angle in degrees")
        }
        if let rightAngle {
            if rightAngle == VIPS_ANGLE_D0 { return image }
            return try image.transformingFrames { frame throws(ImageError) in
                try Vips.run("turning the image", failure: .invalidTransform) { wi_rot(frame.pointer, $0, Int32(rightAngle.rawValue)) }
            }
        }
        let source = image.pixelSize
        let radians = normalisedDegrees * .pi / 180
        let (cosine, sine) = (abs(cos(radians)), abs(sin(radians)))
        let grown = PixelSize(
            width: Int((Double(source.width) * cosine + Double(source.height) * sine).rounded(.up)),
            height: Int((Double(source.width) * sine + Double(source.height) * cosine).rounded(.up))
        )
        try VipsTransform.checkOutput(fitSize ? grown : source, frames: image.frameCount, by: "rotate \(key)")
        let (angle, fitSize, background) = (normalisedDegrees, self.fitSize, self.background)
        return try image.transformingFrames { frame throws(ImageError) in
            let prepared = try VipsTransform.prepare(frame, for: background, addAlpha: !background.isOpaque)
            var values = VipsTransform.values(of: background, for: prepared)
            if prepared.hasAlpha {
                // The background is drawn into premultiplied pixels.
                let alpha = Double(background.alpha) / 255
                values = values.dropLast().map { $0 * alpha } + [Double(background.alpha)]
            }
            let rotated = try Vips.premultiplied(prepared, failure: .invalidTransform) { premultiplied throws(ImageError) in
                try Vips.run("rotating by \(angle)°", failure: .invalidTransform) { out in
                    values.withUnsafeBufferPointer { wi_rotate(premultiplied.pointer, out, angle, $0.baseAddress, Int32($0.count)) }
                }
            }
            guard !fitSize else { return rotated }
            let left = max(0, (rotated.width - source.width) / 2), top = max(0, (rotated.height - source.height) / 2)
            let kept = PixelRect(
                x: left, y: top, width: min(source.width, rotated.width), height: min(source.height, rotated.height)
            )
            return try VipsTransform.extract(rotated, kept)
        }
    }
}
