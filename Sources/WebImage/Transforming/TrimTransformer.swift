import CVips

/// Cuts away a border of background colour (libvips' `find_trim`): everything around the
/// smallest rectangle holding all pixels that differ from the background by more than
/// ``threshold``. Transparent pixels count as magenta (`ff00ff`), so a transparent border
/// is trimmed with that colour (or with the top-left pixel's, when it is transparent).
///
/// An image that is all background, and an animation (whose frames would trim apart), are
/// returned as they are.
///
/// Key: `trim-<threshold>-<rrggbb or auto>[-eqh][-eqv]`, e.g. `trim-10-auto`, `trim-5-ff0000-eqh`.
public struct TrimTransformer: ImageTransformer {
    /// How far (Euclidean distance over 0–255 channels) a pixel may be from the background
    /// and still count as background; 0 or more.
    public let threshold: Double
    /// The background colour (its alpha is ignored); `nil` takes the top-left pixel's.
    public let color: ImageColor?
    /// Cut as much from the right as from the left: the smaller of the two amounts.
    public let equalHorizontal: Bool
    /// Cut as much from the bottom as from the top: the smaller of the two amounts.
    public let equalVertical: Bool

    /// The colour transparent pixels are flattened onto before the search.
    public static let transparencyKey = ImageColor(red: 255, green: 0, blue: 255)

    /// Creates a trim.
    public init(threshold: Double = 10, color: ImageColor? = nil, equalHorizontal: Bool = false, equalVertical: Bool = false) {
        self.threshold = threshold
        self.color = color
        self.equalHorizontal = equalHorizontal
        self.equalVertical = equalVertical
    }

    /// `trim-<threshold>-<rrggbb or auto>`, plus `-eqh` and `-eqv` for the equal sides.
    public var key: String {
        var key = "trim-\(TransformKey.number(threshold))-" + (color.map { String($0.hex.prefix(6)) } ?? "auto")
        if equalHorizontal { key += "-eqh" }
        if equalVertical { key += "-eqv" }
        return key
    }

    /// Cuts away the border of background colour; an animation, or an image that is all
    /// background, is returned as it is.
    public func transform(_ image: Image) throws(ImageError) -> Image {
        guard threshold.isFinite, threshold >= 0 else {
            throw .invalidTransform("trim threshold \(threshold) must be 0 or more (the colour distance still counted as background, e.g. 10)")
        }
        guard !image.isAnimated, let rect = try contentRect(of: image.handle) else { return image }
        if rect.size == image.pixelSize { return image }
        return try image.transformingFrames { frame throws(ImageError) in try VipsTransform.extract(frame, rect) }
    }

    /// The rectangle kept, after the equal-sides adjustments; `nil` when nothing differs
    /// from the background.
    func contentRect(of image: VipsImageHandle) throws(ImageError) -> PixelRect? {
        // sRGB without alpha: the colour the search compares with has three bands.
        var search = try VipsTransform.prepare(image, for: Self.transparencyKey, addAlpha: false)
        if search.hasAlpha {
            let withAlpha = search
            let key = Self.transparencyKey
            search = try Vips.run("flattening onto the transparency key", failure: .invalidTransform) {
                wi_flatten(withAlpha.pointer, $0, Double(key.red), Double(key.green), Double(key.blue))
            }
        }
        let background: [Double]
        if let color {
            background = [Double(color.red), Double(color.green), Double(color.blue)]
        } else {
            background = try topLeftPixel(of: search)
        }
        var left: Int32 = 0, top: Int32 = 0, width: Int32 = 0, height: Int32 = 0
        let status = background.withUnsafeBufferPointer { values in
            wi_find_trim(search.pointer, &left, &top, &width, &height, values.baseAddress, Int32(values.count), threshold)
        }
        guard status == 0 else { throw .invalidTransform("finding the trim failed in libvips: \(Vips.takeError())") }
        guard width > 0, height > 0 else { return nil }
        var rect = PixelRect(x: Int(left), y: Int(top), width: Int(width), height: Int(height))
        if equalHorizontal {
            let right = image.width - rect.x - rect.width
            if right > rect.x { rect.width += right - rect.x } else { rect.width += rect.x - right; rect.x = right }
        }
        if equalVertical {
            let bottom = image.height - rect.y - rect.height
            if bottom > rect.y { rect.height += bottom - rect.y } else { rect.height += rect.y - bottom; rect.y = bottom }
        }
        return rect
    }

    private func topLeftPixel(of image: VipsImageHandle) throws(ImageError) -> [Double] {
        var vector: UnsafeMutablePointer<Double>?
        var count: Int32 = 0
        guard wi_getpoint(image.pointer, &vector, &count, 0, 0) == 0, let vector else {
            throw .invalidTransform("reading the top-left pixel failed in libvips: \(Vips.takeError())")
        }
        defer { wi_g_free(vector) }
        return Array(UnsafeBufferPointer(start: vector, count: Int(count)))
    }
}
