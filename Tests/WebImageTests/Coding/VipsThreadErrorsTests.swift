import CVips
import CVipsThreadErrors
import Foundation
import Testing
@testable import WebImage
import WebImageLocking
import WebImageTestSupport

/// libvips' error messages, each read by the thread whose call raised it.
@Suite("libvips errors per thread")
struct VipsThreadErrorsTests {
    @Test("failures raised at once on eight threads each read their own message, never another's")
    func concurrentFailuresKeepTheirMessages() throws {
        try Vips.start()
        #expect(Vips.keepsErrorsPerThread)
        let wrong = Locked<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            // A pool thread may carry a message an earlier test's call left unread there.
            vips_error_clear()
            for round in 0..<500 {
                let message = "thread \(thread) round \(round)"
                wi_set_error("webimage-test", message)
                let read = Vips.takeError()
                if read != "webimage-test: \(message)" { wrong.withLock { $0.append(read) } }
            }
        }
        #expect(wrong.withLock { $0 }.isEmpty, "\(wrong.withLock { $0.prefix(3) })")
    }

    @Test("a decode that fails in libvips names libvips' own reason, and leaves nothing behind")
    func libvipsOwnFailure() throws {
        let jpeg = try TestImages.encode(try TestImages.gradient(width: 64, height: 64), as: .jpeg)
        // A JPEG's start, then bytes that are no JPEG marker.
        let broken = jpeg.prefix(4) + Data(repeating: 0x5A, count: 512)
        do {
            _ = try VipsCoder.shared.decode(broken)
            Issue.record("a broken JPEG decoded")
        } catch {
            #expect(!error.description.contains("unknown libvips error"), "\(error)")
        }
        #expect(webimage_vips_thread_errors_take() == nil)
    }

    @Test("a message an earlier call left unread on the thread is not part of the next failure's reason")
    func staleMessagesForgotten() throws {
        try Vips.start()
        let jpeg = try TestImages.encode(try TestImages.gradient(width: 64, height: 64), as: .jpeg)
        let broken = jpeg.prefix(4) + Data(repeating: 0x5A, count: 512)
        wi_set_error("earlier-call", "recovered from and never read")
        do {
            _ = try VipsCoder.shared.decode(broken)
            Issue.record("a broken JPEG decoded")
        } catch {
            #expect(!error.description.contains("earlier-call"), "\(error)")
        }
    }

    @Test("the success path raises no error: encode, decode and resize leave the thread's count as it was")
    func successPathPaysNothing() throws {
        let data = try TestImages.encode(try TestImages.gradient(width: 320, height: 240), as: .jpeg)
        let before = webimage_vips_thread_errors_raised()
        let image = try VipsCoder.shared.decode(data)
        _ = try TestImages.encode(image, as: .png)
        #expect(webimage_vips_thread_errors_raised() == before)
    }
}
