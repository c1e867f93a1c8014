import CVips
import COrcCodeLock
import CVipsThreadErrors
import Foundation

/// Process-wide libvips set-up and error handling.
///
/// libvips is initialised once, the first time any WebImage coding call needs it, with
/// settings suited to a server that handles many images at once: no operation cache,
/// one worker thread per image, untrusted loaders blocked.
///
/// libvips' run-time compiled (orc) vector code is on: liborc's compiles and frees of
/// programs go through WebImage's lock (`orc_code_lock.c`), which makes them safe on many
/// threads with liborc 0.4.33 too. Where the lock cannot be installed (a program that does
/// not export its symbols), vector code is turned off instead.
enum Vips {
    private static let initialised: Bool = {
        guard wi_vips_init() == 0 else { return false }
        // Set here rather than left to the inline set-up, which an old module cache could
        // keep: on, as libvips has it, unless VIPS_NOVECTOR asks otherwise or the lock is
        // not in place.
        let wanted = ProcessInfo.processInfo.environment["VIPS_NOVECTOR"] == nil
        vips_vector_set_enabled(wanted && webimage_orc_code_lock_installed() != 0 ? 1 : 0)
        return true
    }()

    /// Whether libvips runs its orc vector code: on, unless `VIPS_NOVECTOR` is set or the
    /// orc code lock could not be installed.
    static var vectorCodeEnabled: Bool { wi_vector_enabled() != 0 }

    /// Initialises libvips if it has not been, and throws when it cannot start; then forgets
    /// the messages earlier calls on this thread left unread (libvips raises some while it
    /// recovers, such as a failed seek while it sniffs a source), so that a failure of the
    /// call starting here reads its own reason only.
    static func start() throws(ImageError) {
        guard initialised else {
            throw .badImageData("libvips failed to initialise: \(takeError())")
        }
        if keepsErrorsPerThread { vips_error_clear() }
    }

    /// Whether libvips keeps each thread's error messages apart (`vips_thread_errors.c`):
    /// when the program exports the definitions that do it.
    static let keepsErrorsPerThread = webimage_vips_thread_errors_installed() != 0

    /// Takes and clears the libvips errors of the failed call: those raised on this thread
    /// (``keepsErrorsPerThread``), else those of libvips' worker threads, which share one
    /// buffer (`vips_error_buffer_copy` copies and clears it under libvips' own lock).
    static func takeError() -> String {
        var text = ""
        if keepsErrorsPerThread, let own = webimage_vips_thread_errors_take() {
            text = String(cString: own)
            free(own)
        }
        if text.isEmpty, let copy = vips_error_buffer_copy() {
            text = String(cString: copy)
            wi_g_free(copy)
        }
        text = text.trimmingCharacters(in: .whitespacesAndNewlines)
        return text.isEmpty ? "unknown libvips error" : text.replacingOccurrences(of: "\n", with: "; ")
    }

    /// Runs a libvips operation with one output image and wraps the result; a failure
    /// throws `failure`'s error, naming `what` and libvips' reason.
    static func run(
        _ what: String,
        failure: Failure = .badImageData,
        _ operation: (UnsafeMutablePointer<UnsafeMutablePointer<VipsImage>?>) -> Int32
    ) throws(ImageError) -> VipsImageHandle {
        var out: UnsafeMutablePointer<VipsImage>?
        guard operation(&out) == 0, let out else {
            throw failure.error(what, reason: takeError())
        }
        return VipsImageHandle(out)
    }

    /// The ``ImageError`` a failed ``run(_:failure:_:)`` throws.
    /// Runs `body` on premultiplied pixels when `image` has alpha, so that resampling
    /// never bleeds the colour of transparent pixels into visible ones; back to 8 bits
    /// after. A libvips failure is `failure`'s error.
    static func premultiplied(
        _ image: VipsImageHandle, failure: Failure, _ body: (VipsImageHandle) throws(ImageError) -> VipsImageHandle
    ) throws(ImageError) -> VipsImageHandle {
        guard image.hasAlpha else { return try body(image) }
        let premultiplied = try run("premultiplying alpha", failure: failure) { wi_premultiply(image.pointer, $0) }
        let processed = try body(premultiplied)
        let unpremultiplied = try run("unpremultiplying alpha", failure: failure) { wi_unpremultiply(processed.pointer, $0) }
        return try run("casting to 8 bits", failure: failure) { wi_cast_uchar(unpremultiplied.pointer, $0) }
    }

    enum Failure {
        /// ``ImageError/badImageData(_:)``, "what: reason": decoding and encoding.
        case badImageData
        /// ``ImageError/invalidTransform(_:)``, "what failed in libvips: reason": transformers.
        case invalidTransform
        /// ``ImageError/encodingFailed(_:)``, "what: reason": readying an image for a saver.
        case encodingFailed

        func error(_ what: String, reason: String) -> ImageError {
            switch self {
            case .badImageData: .badImageData("\(what): \(reason)")
            case .invalidTransform: .invalidTransform("\(what) failed in libvips: \(reason)")
            case .encodingFailed: .encodingFailed("\(what): \(reason)")
            }
        }
    }
}

/// Owns one reference to a libvips image.
///
/// A `VipsImage` is immutable once built and safe to read from several threads, which
/// is what makes this handle `Sendable`. libvips decodes lazily: an image opened from a
/// buffer reads that buffer until its pixels are computed, so WebImage finishes every
/// decode (into memory) before the buffer it was given can go away.
final class VipsImageHandle: @unchecked Sendable {
    let pointer: UnsafeMutablePointer<VipsImage>

    init(_ pointer: UnsafeMutablePointer<VipsImage>) {
        self.pointer = pointer
    }

    deinit { wi_object_unref(pointer) }

    var width: Int { Int(wi_width(pointer)) }
    var height: Int { Int(wi_height(pointer)) }
    var bands: Int { Int(wi_bands(pointer)) }
    var hasAlpha: Bool { vips_image_hasalpha(pointer) != 0 }

    func int(_ name: String) -> Int? {
        var value: Int32 = 0
        return wi_get_int(pointer, name, &value) == 0 ? Int(value) : nil
    }

    func intArray(_ name: String) -> [Int]? {
        var values: UnsafeMutablePointer<Int32>?
        var count: Int32 = 0
        guard wi_get_int_array(pointer, name, &values, &count) == 0, let values else { return nil }
        return (0..<Int(count)).map { Int(values[$0]) }
    }

    /// The height of one frame: libvips stores the frames of an animation as one tall strip.
    var pageHeight: Int { Int(vips_image_get_page_height(pointer)) }

    /// Frames in the file (the `n-pages` header field), 1 when the loader does not say.
    var pagesInFile: Int { max(1, int("n-pages") ?? 1) }
}
