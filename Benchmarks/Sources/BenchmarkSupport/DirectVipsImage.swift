import CVipsBaseline
import Foundation
import WebImage

/// An 8-bit sRGB image held in memory by libvips, made from pixels and transformed by calling
/// libvips directly: the baseline side of the blur pair, which starts from pixels in memory.
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

    deinit {
        bl_unref(pointer)
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
