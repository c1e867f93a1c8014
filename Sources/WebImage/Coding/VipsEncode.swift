import CVips
import Foundation

/// The libvips side of encoding: preparing pixels for a format and calling its saver.
enum VipsEncode {
    /// Composites alpha over the background colour for formats without alpha, then readies
    /// the colour profile and metadata (``metadataPrepared(_:for:)``).
    static func prepare(_ image: Image, for options: ImageEncodeOptions) throws(ImageError) -> VipsImageHandle {
        let handle = options.format == .bmp || options.format == .ico ? try stillPrepared(image, for: options.format) : image.handle
        guard options.format == .jpeg, image.hasAlpha else { return try metadataPrepared(handle, for: options) }
        let color = options.backgroundColor
        let flattened = try Vips.run("flatten") {
            wi_flatten(handle.pointer, $0, Double(color.red), Double(color.green), Double(color.blue))
        }
        return try metadataPrepared(flattened, for: options)
    }

    /// For BMP and ICO, which hold one frame of 8-bit pixels: the first frame, in 8 bits a
    /// channel, and for ICO in colour (RGB or RGBA, which icon readers take) within
    /// ``ICOEncoder/maxSide`` pixels a side (scaled down to fit when larger, as imgproxy does).
    static func stillPrepared(_ image: Image, for format: ImageFormat) throws(ImageError) -> VipsImageHandle {
        var handle = image.handle
        let frame = image.pixelSize
        if handle.height > frame.height {
            let whole = handle
            handle = try Vips.run("extracting the first frame", failure: .encodingFailed) {
                wi_extract_area(whole.pointer, $0, 0, 0, Int32(frame.width), Int32(frame.height))
            }
        }
        if wi_band_format(handle.pointer) != Int32(VIPS_FORMAT_UCHAR.rawValue) {
            let wide = handle
            handle = try Vips.run("casting to 8 bits", failure: .encodingFailed) { wi_cast_uchar(wide.pointer, $0) }
        }
        if format == .ico, handle.bands < 3 {
            let grey = handle
            handle = try Vips.run("converting grey to sRGB", failure: .encodingFailed) {
                wi_colourspace(grey.pointer, $0, Int32(VIPS_INTERPRETATION_sRGB.rawValue))
            }
        }
        if format == .ico, let scale = ICOEncoder.fittingScale(for: frame) {
            // Premultiplied, so that the colour of transparent pixels does not bleed into the edges.
            handle = try Vips.premultiplied(handle, failure: .encodingFailed) { large throws(ImageError) in
                try Vips.run("fitting the icon in \(ICOEncoder.maxSide) pixels", failure: .encodingFailed) {
                    wi_resize(large.pointer, $0, scale, scale)
                }
            }
        }
        return handle
    }

    /// Whether the saver's own `strip` flag does what `options` ask: all metadata or none.
    static func stripsWithSaver(_ options: ImageEncodeOptions) -> Bool {
        options.colorProfile == .sRGB && !options.keepCopyright
    }

    /// Brings the pixels to the output's colour profile (``ImageEncodeOptions/colorProfile``);
    /// when stripping metadata with a profile or the copyright to keep, removes everything
    /// else (the saver then keeps what is left).
    static func metadataPrepared(_ image: VipsImageHandle, for options: ImageEncodeOptions) throws(ImageError) -> VipsImageHandle {
        var result = image
        var keepsProfile = false
        // A format that cannot carry a profile is written in sRGB, whatever was asked.
        let colorProfile = options.format.carriesColorProfile ? options.colorProfile : .sRGB
        switch colorProfile {
        case .sRGB:
            if let profile = VipsColor.usableProfile(of: result), !profile.isSRGB {
                result = try VipsColor.toSRGB(result, failure: .encodingFailed)
            } else if wi_has_icc(result.pointer) != 0, VipsColor.usableProfile(of: result) == nil {
                result = try VipsColor.withoutProfile(result, failure: .encodingFailed)
            }
        case .source:
            keepsProfile = wi_has_icc(result.pointer) != 0
        case .profile(let profile):
            result = try VipsColor.convert(result, to: profile, failure: .encodingFailed)
            keepsProfile = true
        }
        guard options.stripMetadata, !stripsWithSaver(options) else { return result }
        let source = result
        return try Vips.run("stripping metadata", failure: .encodingFailed) {
            wi_strip_metadata(source.pointer, $0, keepsProfile ? 1 : 0, options.keepCopyright ? 1 : 0)
        }
    }

    /// Writes `image` in `options.format` at `quality`.
    static func save(_ image: VipsImageHandle, options: ImageEncodeOptions, quality: Int) throws(ImageError) -> Data {
        var buffer: UnsafeMutableRawPointer?
        var length = 0
        // Metadata to keep was kept by metadataPrepared; the saver then strips nothing.
        let strip: Int32 = options.stripMetadata && stripsWithSaver(options) ? 1 : 0
        let progressive: Int32 = options.progressive ? 1 : 0
        let lossless: Int32 = options.lossless ? 1 : 0
        let q = Int32(quality)
        let status: Int32
        switch options.format {
        case .jpeg: status = wi_jpegsave(image.pointer, &buffer, &length, q, strip, progressive)
        case .png:
            let interlaced: Int32 = options.pngInterlaced ? 1 : 0
            if let colors = options.pngPaletteColors {
                let depth = ImageEncodeOptions.paletteBitDepth(colors: colors)
                status = wi_pngsave_palette(image.pointer, &buffer, &length, 6, strip, interlaced, depth)
            } else {
                status = wi_pngsave(image.pointer, &buffer, &length, 6, strip, interlaced)
            }
        case .webp:
            status = wi_webpsave(image.pointer, &buffer, &length, q, lossless, strip, Int32(options.webpEffort), options.webpPreset.vipsValue)
        case .avif: status = wi_avifsave(image.pointer, &buffer, &length, q, lossless, strip, Int32(options.avifEffort))
        case .heic: status = wi_heicsave(image.pointer, &buffer, &length, q, strip)
        case .gif: status = wi_gifsave(image.pointer, &buffer, &length, 7, 8)
        case .tiff: status = wi_tiffsave(image.pointer, &buffer, &length, strip)
        case .jxl: status = wi_jxlsave(image.pointer, &buffer, &length, q, lossless, Int32(options.jxlEffort), strip)
        case .bmp: return try bitmap(image)
        case .ico:
            status = wi_pngsave(image.pointer, &buffer, &length, 6, 1, 0)
            guard status == 0, let buffer else { break }
            let png = Data(bytesNoCopy: buffer, count: length, deallocator: .custom { pointer, _ in wi_g_free(pointer) })
            return try ICOEncoder.wrap(png: png, width: image.width, height: image.height, hasAlpha: image.hasAlpha)
        default:
            throw .encodingFailed("\(options.format.rawValue) cannot be written")
        }
        guard status == 0, let buffer else {
            throw .encodingFailed("\(options.format.rawValue): \(Vips.takeError())")
        }
        return Data(bytesNoCopy: buffer, count: length, deallocator: .custom { pointer, _ in wi_g_free(pointer) })
    }

    /// `image`'s 8-bit pixels written by ``BMPEncoder``.
    private static func bitmap(_ image: VipsImageHandle) throws(ImageError) -> Data {
        var size = 0
        guard let memory = vips_image_write_to_memory(image.pointer, &size) else {
            throw .encodingFailed("bmp: \(Vips.takeError())")
        }
        defer { wi_g_free(memory) }
        let bands = image.bands
        guard (1...4).contains(bands) else {
            throw .encodingFailed("a BMP file holds grey, grey with alpha, RGB or RGBA; this image has \(bands) channels")
        }
        return try BMPEncoder.encode(UnsafeRawBufferPointer(start: memory, count: size), width: image.width, height: image.height, channels: bands)
    }
}
