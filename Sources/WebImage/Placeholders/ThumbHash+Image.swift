import CVips

extension ThumbHash {
    /// Hashes any decoded image: its first frame (for an animation), shrunk with libvips to
    /// fit ``maxEncodedSide`` × ``maxEncodedSide`` keeping its aspect ratio (never enlarged),
    /// as RGBA — grey becomes RGB, and an image without alpha is opaque.
    public init(image: Image) throws(ImageError) {
        let frame = try image.frame(at: 0)
        let box = PixelSize(width: Self.maxEncodedSide, height: Self.maxEncodedSide)
        let thumbnail = try ResizeTransformer(size: box, mode: .fit).transform(frame)
        let rgba = try Self.rgbaPixels(of: thumbnail.handle)
        try self.init(rgba: rgba, width: thumbnail.pixelSize.width, height: thumbnail.pixelSize.height)
    }

    /// The pixels of a still image as 8-bit RGBA.
    static func rgbaPixels(of image: VipsImageHandle) throws(ImageError) -> [UInt8] {
        var result = image
        if VipsTransform.isGrey(result) {
            let grey = result
            result = try Vips.run("converting grey to sRGB for a ThumbHash") {
                wi_colourspace(grey.pointer, $0, Int32(VIPS_INTERPRETATION_sRGB.rawValue))
            }
        }
        if !result.hasAlpha {
            let opaque = result
            result = try Vips.run("adding alpha for a ThumbHash") { wi_bandjoin_const1(opaque.pointer, $0, 255) }
        }
        if wi_band_format(result.pointer) != Int32(VIPS_FORMAT_UCHAR.rawValue) {
            let wide = result
            result = try Vips.run("casting to 8 bits for a ThumbHash") { wi_cast_uchar(wide.pointer, $0) }
        }
        guard result.bands == 4 else {
            throw .badImageData("a ThumbHash needs RGBA pixels; the image has \(result.bands) bands after conversion")
        }
        var size = 0
        guard let memory = vips_image_write_to_memory(result.pointer, &size) else {
            throw .badImageData("cannot read pixels for a ThumbHash: \(Vips.takeError())")
        }
        defer { wi_g_free(memory) }
        return [UInt8](UnsafeRawBufferPointer(start: memory, count: size))
    }
}
