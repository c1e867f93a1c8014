import WebImage

extension ProxyTransformer {
    /// `image` without its border of background, when the options trim (animations are left alone).
    func trimmed(_ image: Image) throws(ImageError) -> Image {
        guard let trim = options.trim, !options.raw else { return image }
        return try TrimTransformer(
            threshold: trim.threshold, color: trim.color, equalHorizontal: trim.equalHorizontal, equalVertical: trim.equalVertical
        ).transform(image)
    }

    /// `image` with the server's watermark put on as the options say.
    func watermarked(_ image: Image) throws(ImageError) -> Image {
        guard let option = options.watermark, let watermark, !options.raw else { return image }
        let opacity = option.opacity * watermark.baseOpacity
        guard opacity > 0 else { return image }
        let size = image.pixelSize
        let x = Self.pixels(option.xOffset, of: size.width, dpr: options.dpr)
        let y = Self.pixels(option.yOffset, of: size.height, dpr: options.dpr)
        let placement: WatermarkTransformer.Placement
        switch option.position {
        case .replicate: placement = .tiled(xSpacing: x, ySpacing: y)
        case .anchor(let anchor): placement = .anchored(anchor.gravity, xOffset: x, yOffset: y)
        }
        return try WatermarkTransformer(
            mark: watermark.image, markKey: watermark.digest, opacity: min(1, opacity), placement: placement,
            scale: option.scale > 0 ? option.scale : nil
        ).transform(image)
    }

    /// imgproxy's offsets: 1 or more (or -1 or less) is CSS pixels times the dpr, a value
    /// between -1 and 1 a fraction of `extent`; halves round to even.
    static func pixels(_ offset: Double, of extent: Int, dpr: Double) -> Int {
        let value = abs(offset) >= 1 ? offset * dpr : Double(extent) * offset
        return Int(value.rounded(.toNearestOrEven))
    }
}

extension GravityAnchor {
    /// The library's gravity at this anchor.
    var gravity: Gravity {
        switch self {
        case .center: .center
        case .north: .north
        case .south: .south
        case .east: .east
        case .west: .west
        case .northEast: .northEast
        case .northWest: .northWest
        case .southEast: .southEast
        case .southWest: .southWest
        }
    }
}
