import CVips

/// Mirrors the image left–right, top–bottom, or both (a half turn). Lossless.
///
/// Key: `flip-h`, `flip-v`, `flip-hv`, or `flip-none` (the identity).
public struct FlipTransformer: ImageTransformer {
    /// Mirror left–right.
    public let horizontal: Bool
    /// Mirror top–bottom.
    public let vertical: Bool

    /// Creates a flip.
    public init(horizontal: Bool, vertical: Bool) {
        self.horizontal = horizontal
        self.vertical = vertical
    }

    /// `flip-h`, `flip-v`, `flip-hv` or `flip-none`, by the directions mirrored.
    public var key: String {
        switch (horizontal, vertical) {
        case (true, true): "flip-hv"
        case (true, false): "flip-h"
        case (false, true): "flip-v"
        case (false, false): "flip-none"
        }
    }

    /// Mirrors every frame in the directions set; both together are a half turn, neither
    /// returns the image as it is.
    public func transform(_ image: Image) throws(ImageError) -> Image {
        let (horizontal, vertical) = (self.horizontal, self.vertical)
        if !horizontal, !vertical { return image }
        return try image.transformingFrames { frame throws(ImageError) in
            if horizontal, vertical {
                return try Vips.run("turning 180°", failure: .invalidTransform) { wi_rot(frame.pointer, $0, Int32(VIPS_ANGLE_D180.rawValue)) }
            }
            let direction = horizontal ? VIPS_DIRECTION_HORIZONTAL : VIPS_DIRECTION_VERTICAL
            return try Vips.run("flipping", failure: .invalidTransform) { wi_flip(frame.pointer, $0, Int32(direction.rawValue)) }
        }
    }
}
