import WebImage

extension ProcessingGeometry {
    /// How much the (cropped) source is scaled, and the dpr left for sizes and offsets:
    /// imgproxy's `calcScale` and `limitScale`.
    struct Scale: Sendable, Hashable {
        /// Horizontal scale factor.
        var width: Double
        /// Vertical scale factor.
        var height: Double
        /// The dpr after the adjustments that keep an image from being enlarged.
        var dpr: Double

        /// The scale of an image of `size` (after the `crop` option) for `options`.
        init(options: ProcessingOptions, size: PixelSize) {
            let sourceWidth = Double(size.width)
            let sourceHeight = Double(size.height)
            let wantedWidth = options.width != 0 ? Double(options.width) : sourceWidth
            let wantedHeight = options.height != 0 ? Double(options.height) : sourceHeight
            var widthShrink = wantedWidth != sourceWidth ? sourceWidth / wantedWidth : 1
            var heightShrink = wantedHeight != sourceHeight ? sourceHeight / wantedHeight : 1

            if widthShrink != 1 || heightShrink != 1 {
                var type = options.resizingType
                if type == .auto {
                    // fill when source and request share an orientation, else fit.
                    let sourceWide = sourceWidth - sourceHeight >= 0
                    let wantedWide = wantedWidth - wantedHeight >= 0
                    type = sourceWide == wantedWide ? .fill : .fit
                }
                if options.width == 0 && type != .force {
                    widthShrink = heightShrink
                } else if options.height == 0 && type != .force {
                    heightShrink = widthShrink
                } else if type == .fit {
                    widthShrink = max(widthShrink, heightShrink)
                    heightShrink = widthShrink
                } else if type == .fill || type == .fillDown {
                    widthShrink = min(widthShrink, heightShrink)
                    heightShrink = widthShrink
                }
            }

            widthShrink /= options.zoomWidth
            heightShrink /= options.zoomHeight

            var dpr = options.dpr
            if !options.enlarge {
                let smallest = min(widthShrink, heightShrink)
                if smallest < 1 {
                    widthShrink /= smallest
                    heightShrink /= smallest
                    // The image cannot reach the requested size; a dpr below 1 would take
                    // it further away, so it is compensated (not when extending: the
                    // composition stays the same whatever the dpr).
                    if !options.extend { dpr /= smallest }
                }
                // The largest dpr that does not enlarge the image.
                dpr = min(dpr, min(widthShrink, heightShrink))
            }

            if options.minWidth > 0 {
                let shrink = sourceWidth / Double(options.minWidth)
                if shrink < widthShrink {
                    heightShrink /= widthShrink / shrink
                    widthShrink = shrink
                }
            }
            if options.minHeight > 0 {
                let shrink = sourceHeight / Double(options.minHeight)
                if shrink < heightShrink {
                    widthShrink /= heightShrink / shrink
                    heightShrink = shrink
                }
            }

            widthShrink /= dpr
            heightShrink /= dpr
            // Never below one pixel.
            widthShrink = min(widthShrink, sourceWidth)
            heightShrink = min(heightShrink, sourceHeight)

            self.width = 1 / widthShrink
            self.height = 1 / heightShrink
            self.dpr = dpr
        }

        /// Scales down (imgproxy's `limitScale`) so that the result, extension and padding
        /// included, is at most `limit` pixels on its longer side; `sizes` are recomputed.
        mutating func limit(to limit: Int, options: ProcessingOptions, size: PixelSize, sizes: inout Sizes) {
            var outWidth = ProcessingGeometry.minNonZero(sizes.scaled.width, sizes.resultCrop.width)
            var outHeight = ProcessingGeometry.minNonZero(sizes.scaled.height, sizes.resultCrop.height)
            if options.extend {
                outWidth = max(outWidth, sizes.target.width)
                outHeight = max(outHeight, sizes.target.height)
            } else if options.extendAspectRatio {
                outWidth = max(outWidth, sizes.aspect.width)
                outHeight = max(outHeight, sizes.aspect.height)
            }
            if let padding = options.padding {
                outWidth += ProcessingGeometry.scaledToEven(padding.left, dpr) + ProcessingGeometry.scaledToEven(padding.right, dpr)
                outHeight += ProcessingGeometry.scaledToEven(padding.top, dpr) + ProcessingGeometry.scaledToEven(padding.bottom, dpr)
            }
            guard outWidth > limit || outHeight > limit else { return }
            let factor = Double(limit) / Double(max(outWidth, outHeight))
            width = max(width * factor, 1 / Double(size.width))
            height = max(height * factor, 1 / Double(size.height))
            dpr *= factor
            sizes = Sizes(options: options, size: size, scale: self)
        }
    }

    /// The sizes the steps after the resize aim for: imgproxy's `calcSizes`.
    struct Sizes: Sendable, Hashable {
        /// The requested size times dpr and zoom (0 where not requested).
        var target: PixelSize
        /// The size of the resized image.
        var scaled: PixelSize
        /// The size the resized image is cropped to (0: that side is kept).
        var resultCrop: PixelSize
        /// The canvas of `extend_aspect_ratio` (0 × 0 when there is none).
        var aspect = PixelSize(width: 0, height: 0)

        init(options: ProcessingOptions, size: PixelSize, scale: Scale) {
            target = PixelSize(width: ProcessingGeometry.scaled(options.width, scale.dpr * options.zoomWidth),
                               height: ProcessingGeometry.scaled(options.height, scale.dpr * options.zoomHeight))
            scaled = PixelSize(width: ProcessingGeometry.scaled(size.width, scale.width),
                               height: ProcessingGeometry.scaled(size.height, scale.height))
            resultCrop = target
            if options.resizingType == .fillDown && !options.enlarge {
                // Too small to fill: keep the requested aspect ratio at the largest size that fits.
                let widthRatio = Double(target.width) / Double(scaled.width)
                let heightRatio = Double(target.height) / Double(scaled.height)
                if widthRatio > heightRatio && widthRatio > 1 {
                    resultCrop = PixelSize(width: scaled.width,
                                           height: ProcessingGeometry.scaled(scaled.width, Double(target.height) / Double(target.width)))
                } else if heightRatio > widthRatio && heightRatio > 1 {
                    resultCrop = PixelSize(width: ProcessingGeometry.scaled(scaled.height, Double(target.width) / Double(target.height)),
                                           height: scaled.height)
                }
            }
            if options.extendAspectRatio, target.width > 0, target.height > 0 {
                let outWidth = ProcessingGeometry.minNonZero(scaled.width, resultCrop.width)
                let outHeight = ProcessingGeometry.minNonZero(scaled.height, resultCrop.height)
                let widthRatio = Double(target.width) / Double(outWidth)
                let heightRatio = Double(target.height) / Double(outHeight)
                if heightRatio > widthRatio {
                    aspect = PixelSize(width: outWidth, height: ProcessingGeometry.scaled(outWidth, Double(target.height) / Double(target.width)))
                } else if widthRatio > heightRatio {
                    aspect = PixelSize(width: ProcessingGeometry.scaled(outHeight, Double(target.width) / Double(target.height)), height: outHeight)
                }
            }
        }
    }
}
