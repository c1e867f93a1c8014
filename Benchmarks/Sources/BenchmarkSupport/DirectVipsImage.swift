import CVipsBaseline
import Foundation
import WebImage

/// An 8-bit sRGB image held in memory by libvips, made (from pixels or by a full decode) and transformed by calling libvips
/// directly: the baseline side of the transform benchmarks, which start from decoded pixels.
///
/// The image is never changed after it is made (each operation makes a new one and
/// finishes it in memory), and libvips allows concurrent reads of an image, so the
/// reference may be shared between threads.
public final class DirectVipsImage: @unchecked Sendable {
    private let pointer: UnsafeMutableRawPointer

    /// The image's size.
    public let size: PixelSize

    /// Copies packed 8-bit pixels (`channels` 3 or 4, row after row) into a libvips memory
    /// image (`vips_image_new_from_memory_copy`, interpretation sRGB).
    public init(pixels: [UInt8], width: Int, height: Int, channels: Int) throws {
        try DirectVips.start()
        guard pixels.count == width * height * channels,
              let pointer = pixels.withUnsafeBytes({
                  bl_image_from_pixels($0.baseAddress, $0.count, Int32(width), Int32(height), Int32(channels))
              })
        else { throw DirectVips.Failure(description: "vips_image_new_from_memory_copy: \(DirectVips.lastError())") }
        self.pointer = pointer
        self.size = PixelSize(width: width, height: height)
    }

    /// Decodes `data` in full into a libvips memory image (`vips_image_new_from_buffer`,
    /// `access=sequential`, + `vips_image_copy_memory`).
    public init(decoding data: Data) throws {
        try DirectVips.start()
        guard let pointer = data.withUnsafeBytes({ bl_decode_to_memory($0.baseAddress, $0.count) }) else {
            throw DirectVips.Failure(description: "vips_image_new_from_buffer: \(DirectVips.lastError())")
        }
        self.pointer = pointer
        self.size = PixelSize(width: Int(bl_width(pointer)), height: Int(bl_height(pointer)))
    }

    deinit {
        bl_unref(pointer)
    }

    /// `vips_thumbnail_image(…, width, "height", height, "crop", VIPS_INTERESTING_CENTRE)`
    /// + `vips_image_copy_memory`: a centred fill. Returns the result's size.
    public func thumbnailFill(width: Int, height: Int) throws -> PixelSize {
        var outWidth: Int32 = 0
        var outHeight: Int32 = 0
        guard bl_thumbnail_fill_image(pointer, Int32(width), Int32(height), &outWidth, &outHeight) == 0 else {
            throw DirectVips.Failure(description: "vips_thumbnail_image: \(DirectVips.lastError())")
        }
        return PixelSize(width: Int(outWidth), height: Int(outHeight))
    }

    /// `vips_gaussblur(…, sigma)` + `vips_image_copy_memory`. Returns the result's size.
    public func gaussianBlur(sigma: Double) throws -> PixelSize {
        var outWidth: Int32 = 0
        var outHeight: Int32 = 0
        guard bl_gaussblur(pointer, sigma, &outWidth, &outHeight) == 0 else {
            throw DirectVips.Failure(description: "vips_gaussblur: \(DirectVips.lastError())")
        }
        return PixelSize(width: Int(outWidth), height: Int(outHeight))
    }
}
