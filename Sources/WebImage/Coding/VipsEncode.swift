import CVips
import Foundation

/// The libvips side of encoding: preparing pixels for a format and calling its saver.
enum VipsEncode {
    /// Composites alpha over the background colour for formats without alpha.
    static func prepare(_ image: Image, for options: ImageEncodeOptions) throws(ImageError) -> VipsImageHandle {
        let handle = image.handle
        guard options.format == .jpeg, image.hasAlpha else { return handle }
        let color = options.backgroundColor
        return try Vips.run("flatten") {
            wi_flatten(handle.pointer, $0, Double(color.red), Double(color.green), Double(color.blue))
        }
    }

    /// Writes `image` in `options.format` at `quality`.
    static func save(_ image: VipsImageHandle, options: ImageEncodeOptions, quality: Int) throws(ImageError) -> Data {
        var buffer: UnsafeMutableRawPointer?
        var length = 0
        let strip: Int32 = options.stripMetadata ? 1 : 0
        let progressive: Int32 = options.progressive ? 1 : 0
        let lossless: Int32 = options.lossless ? 1 : 0
        let q = Int32(quality)
        let status: Int32
        switch options.format {
        case .jpeg: status = wi_jpegsave(image.pointer, &buffer, &length, q, strip, progressive)
        case .png: status = wi_pngsave(image.pointer, &buffer, &length, 6, strip, progressive)
        case .webp: status = wi_webpsave(image.pointer, &buffer, &length, q, lossless, strip)
        case .avif: status = wi_avifsave(image.pointer, &buffer, &length, q, lossless, strip, 4)
        case .heic: status = wi_heicsave(image.pointer, &buffer, &length, q, strip)
        case .gif: status = wi_gifsave(image.pointer, &buffer, &length, 7, 8)
        case .tiff: status = wi_tiffsave(image.pointer, &buffer, &length, strip)
        default:
            throw .encodingFailed("\(options.format.rawValue) cannot be written")
        }
        guard status == 0, let buffer else {
            throw .encodingFailed("\(options.format.rawValue): \(Vips.takeError())")
        }
        return Data(bytesNoCopy: buffer, count: length, deallocator: .custom { pointer, _ in wi_g_free(pointer) })
    }
}
