import CVipsBaseline
import Foundation
import WebImage

/// The baseline: the same decodes as WebImage's, made by calling libvips directly.
public enum DirectVips {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String

        public init(description: String) {
            self.description = description
        }
    }

    /// Starts libvips for both sides with the same process settings, so that whichever
    /// benchmark runs, the process is set up the same way.
    public static func start() throws {
        try VipsCoder.setUntrustedLoadersAllowed(false)
        guard bl_init() == 0 else { throw Failure(description: "libvips failed to start: \(lastError())") }
    }

    /// `vips_thumbnail_buffer(…, width, "height", height)` + `vips_image_copy_memory`.
    public static func thumbnail(_ data: Data, width: Int, height: Int) throws -> PixelSize {
        try outputSize(of: "vips_thumbnail_buffer", on: data) { bytes, outWidth, outHeight in
            bl_thumbnail_buffer(bytes.baseAddress, bytes.count, Int32(width), Int32(height), outWidth, outHeight)
        }
    }

    /// `vips_image_new_from_buffer` + `vips_image_copy_memory`, with libvips' default
    /// (random) access, or with `access=sequential`.
    public static func decode(_ data: Data, sequential: Bool = false) throws -> PixelSize {
        try outputSize(of: "vips_image_new_from_buffer", on: data) { bytes, outWidth, outHeight in
            sequential
                ? bl_decode_buffer_sequential(bytes.baseAddress, bytes.count, outWidth, outHeight)
                : bl_decode_buffer(bytes.baseAddress, bytes.count, outWidth, outHeight)
        }
    }

    /// `vips_thumbnail_buffer(…, width, "height", height, "crop", VIPS_INTERESTING_CENTRE)`
    /// + `vips_image_copy_memory`: shrink-on-load, resample, centre crop (a fill).
    public static func thumbnailFill(_ data: Data, width: Int, height: Int) throws -> PixelSize {
        try outputSize(of: "vips_thumbnail_buffer (crop)", on: data) { bytes, outWidth, outHeight in
            bl_thumbnail_fill_buffer(bytes.baseAddress, bytes.count, Int32(width), Int32(height), outWidth, outHeight)
        }
    }

    /// `vips_thumbnail_buffer(…, width, "height", height)` streamed into
    /// `vips_jpegsave_buffer(Q quality, strip, optimize_coding)`: the proxy's JPEG answer.
    /// Returns the JPEG's length.
    public static func thumbnailJPEG(_ data: Data, width: Int, height: Int, quality: Int) throws -> Int {
        var length = 0
        let status = data.withUnsafeBytes { bl_thumbnail_jpeg($0.baseAddress, $0.count, Int32(width), Int32(height), Int32(quality), &length) }
        guard status == 0 else { throw Failure(description: "vips_thumbnail_buffer + vips_jpegsave_buffer: \(lastError())") }
        return length
    }

    /// Runs a libvips wrapper on `data`'s bytes; the size it wrote out, or its error.
    private static func outputSize(
        of operation: String, on data: Data,
        _ call: (UnsafeRawBufferPointer, UnsafeMutablePointer<Int32>, UnsafeMutablePointer<Int32>) -> Int32
    ) throws -> PixelSize {
        var outWidth: Int32 = 0
        var outHeight: Int32 = 0
        let status = data.withUnsafeBytes { call($0, &outWidth, &outHeight) }
        guard status == 0 else { throw Failure(description: "\(operation): \(lastError())") }
        return PixelSize(width: Int(outWidth), height: Int(outHeight))
    }

    /// libvips' error buffer as text (for a failure just reported).
    static func lastError() -> String {
        guard let text = bl_error() else { return "unknown libvips error" }
        return String(cString: text).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
