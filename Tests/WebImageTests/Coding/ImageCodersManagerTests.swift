import Foundation
import Synchronization
import Testing
@testable import WebImage
import WebImageTestSupport

/// A coder that claims JPEG data and the PNG format, and answers with a fixed 3×2 image
/// and fixed bytes: the analogue of SDWebImage's `SDWebImageTestCoder`
/// (Tests/Tests/SDWebImageTestCoder.m), which answers every call with a fixed image or
/// the bytes "TestEncode".
private final class StubJPEGCoder: ImageCoder {
    static let size = PixelSize(width: 3, height: 2)
    static let encoded = Data("TestEncode".utf8)

    let decodes = Atomic<Int>(0)
    let marker: Image

    init() throws {
        marker = try Image(pixels: [UInt8](repeating: 7, count: 3 * 2 * 3), width: 3, height: 2, channels: 3)
    }

    func canDecode(_ data: Data) -> Bool { ImageFormat(data: data) == .jpeg }

    func inspect(_ data: Data, limits: ImageLimits) throws(ImageError) -> ImageInfo {
        ImageInfo(format: .jpeg, pixelSize: Self.size, frameCount: 1, orientation: 1, hasAlpha: false)
    }

    func decode(_ data: Data, options: ImageDecodeOptions) throws(ImageError) -> Image {
        decodes.add(1, ordering: .relaxed)
        return marker
    }

    func decodePartial(_ data: Data, options: ImageDecodeOptions) throws(ImageError) -> Image? { marker }

    func canEncode(_ format: ImageFormat) -> Bool { format == .png }

    func encode(_ image: Image, options: ImageEncodeOptions) throws(ImageError) -> Data { Self.encoded }
}

@Suite("ImageCodersManager")
struct ImageCodersManagerTests {
    let jpeg: Data
    let png: Data
    let qoi: Data

    init() throws {
        let image = try TestImages.gradient(width: 40, height: 30)
        jpeg = try TestImages.encode(image, as: .jpeg)
        png = try TestImages.encode(image, as: .png)
        qoi = try QOIFixtures.data("qoi-rgb-16x16.qoi")
    }

    // Mirrors SDImageCacheTests `test41ThatCustomDecoderWorksForImageCache` and
    // SDWebImageDownloaderTests `test22ThatCustomDecoderWorksForImageDownload`: a coder
    // added at run time takes over from the built-in one, and removing it gives it back.
    @Test("the coder added last wins: a stub claiming JPEG overrides VipsCoder until removed")
    func lastAddedWins() throws {
        let manager = ImageCodersManager()
        let stub = try StubJPEGCoder()
        #expect(try manager.decode(jpeg, options: .init()).pixelSize == PixelSize(width: 40, height: 30))

        manager.addCoder(stub)
        #expect(try manager.decode(jpeg, options: .init()).pixelSize == StubJPEGCoder.size)
        #expect(try manager.inspect(jpeg, limits: .default).pixelSize == StubJPEGCoder.size)
        #expect(try manager.decodePartial(jpeg.prefix(100), options: .init())?.pixelSize == StubJPEGCoder.size)
        #expect(stub.decodes.load(ordering: .relaxed) == 1)
        // What the stub does not claim still goes to libvips.
        #expect(try manager.decode(png, options: .init()).pixelSize == PixelSize(width: 40, height: 30))

        // VipsCoder added again, after the stub, takes JPEG back.
        manager.addCoder(VipsCoder.shared)
        #expect(try manager.decode(jpeg, options: .init()).pixelSize == PixelSize(width: 40, height: 30))
        manager.removeCoders(ofType: VipsCoder.self)
        #expect(try manager.decode(jpeg, options: .init()).pixelSize == StubJPEGCoder.size)

        manager.coders = [VipsCoder.shared, stub]
        manager.removeCoder(stub)
        #expect(try manager.decode(jpeg, options: .init()).pixelSize == PixelSize(width: 40, height: 30))
        #expect(stub.decodes.load(ordering: .relaxed) == 2)
    }

    // Mirrors the add/remove calls of SDImageCodersManager (addCoder:, removeCoder:, coders).
    @Test("coders keeps the order of addition; removal by identity, by type and by predicate")
    func addAndRemove() throws {
        let manager = ImageCodersManager(coders: [])
        #expect(manager.coders.isEmpty)
        let first = try StubJPEGCoder(), second = try StubJPEGCoder()
        manager.addCoder(VipsCoder.shared)
        manager.addCoder(first)
        manager.addCoder(QOICoder())
        manager.addCoder(second)
        #expect(manager.coders.map { String(describing: type(of: $0)) } == ["VipsCoder", "StubJPEGCoder", "QOICoder", "StubJPEGCoder"])

        manager.removeCoder(first)  // by identity: `second` stays
        #expect(manager.coders.count == 3)
        #expect(manager.coders.last.map { $0 as AnyObject === second } == true)
        manager.removeCoder(first)  // not held: nothing changes
        #expect(manager.coders.count == 3)

        #expect(manager.removeCoders(ofType: QOICoder.self) == 1)
        #expect(manager.removeCoders(ofType: QOICoder.self) == 0)
        #expect(manager.removeCoders { $0 is StubJPEGCoder } == 1)
        #expect(manager.coders.count == 1 && manager.coders[0] is VipsCoder)

        manager.coders = [QOICoder(), QOICoder()]
        #expect(manager.coders.count == 2)
        #expect(!manager.canDecode(jpeg))
    }

    @Test("encoding goes to the highest-priority coder that writes the format")
    func encodeRouting() throws {
        let manager = ImageCodersManager()
        let image = try TestImages.gradient(width: 16, height: 16)
        #expect(ImageFormat(data: try manager.encode(image, options: ImageEncodeOptions(format: .png))) == .png)

        manager.addCoder(try StubJPEGCoder())
        #expect(manager.canEncode(.png))
        #expect(try manager.encode(image, options: ImageEncodeOptions(format: .png)) == StubJPEGCoder.encoded)
        #expect(ImageFormat(data: try manager.encode(image, options: ImageEncodeOptions(format: .jpeg))) == .jpeg)

        #expect(!manager.canEncode(.qoi))
        do {
            _ = try manager.encode(image, options: ImageEncodeOptions(format: .qoi))
            Issue.record("encoded QOI without a QOI coder")
        } catch {
            guard case .encodingFailed(let reason) = error else { Issue.record("expected encodingFailed, got \(error)"); return }
            #expect(reason.contains("qoi") && reason.contains("add QOICoder()") && reason.contains("jpeg"), "\(reason)")
        }
        manager.addCoder(QOICoder())
        let encoded = try manager.encode(image, options: ImageEncodeOptions(format: .qoi))
        #expect(ImageFormat(data: encoded) == .qoi)
        #expect(try manager.decode(encoded, options: .init()).pixels() == image.pixels())
    }

    @Test("shared starts with VipsCoder; a fresh manager decodes QOI only after addCoder(QOICoder())")
    func qoiAfterAddingTheCoder() throws {
        #expect(ImageCodersManager.shared.coders.first is VipsCoder)

        let manager = ImageCodersManager()
        #expect(manager.coders.count == 1 && manager.coders[0] is VipsCoder)
        #expect(!manager.canDecode(qoi))
        #expect(try manager.decodePartial(qoi, options: .init()) == nil)
        do {
            _ = try manager.decode(qoi, options: .init())
            Issue.record("decoded QOI without QOICoder")
        } catch {
            guard case .badImageData(let reason) = error else { Issue.record("expected badImageData, got \(error)"); return }
            #expect(reason.contains("qoi") && reason.contains("add QOICoder() with addCoder(_:)"), "\(reason)")
        }

        manager.addCoder(QOICoder())
        #expect(manager.canDecode(qoi))
        let image = try manager.decode(qoi, options: .init())
        #expect(image.format == .qoi)
        #expect([UInt8](try image.pixels()) == QOIFixturePixels.rgb16x16())
        #expect(try manager.inspect(qoi, limits: .default).format == .qoi)
        // JPEG and PNG still decode through libvips.
        #expect(try manager.decode(jpeg, options: .init()).format == .jpeg)
        #expect(try manager.decode(png, options: .init()).format == .png)
    }

    // Mirrors SDImageCoderTests `test15ThatCodersManagerWorks`: what a manager does with
    // data no coder takes (SDWebImage returns nil; WebImage throws a message saying why).
    @Test("data no coder takes fails with a message that says what the bytes are and how to add a coder")
    func noCoder() throws {
        let manager = ImageCodersManager()
        #expect(throws: ImageError.badImageData("the data is empty (0 bytes)")) { try manager.decode(Data(), options: .init()) }
        do {
            _ = try manager.decode(Data("<!DOCTYPE html><html>404</html>".utf8), options: .init())
        } catch {
            guard case .badImageData(let reason) = error else { Issue.record("expected badImageData, got \(error)"); return }
            #expect(reason.contains("HTML") && reason.contains("VipsCoder") && reason.contains("addCoder(_:)"), "\(reason)")
        }
        let empty = ImageCodersManager(coders: [])
        #expect(!empty.canDecode(jpeg))
        #expect(!empty.canEncode(.png))
        #expect(try empty.decodePartial(jpeg, options: .init()) == nil)
        do {
            _ = try empty.inspect(jpeg, limits: .default)
        } catch {
            guard case .badImageData(let reason) = error else { Issue.record("expected badImageData, got \(error)"); return }
            #expect(reason.contains("holds no coder") && reason.contains("jpeg"), "\(reason)")
        }
        // VipsCoder's own reason survives routing: BMP needs an untrusted loader.
        let bmp = Data("BM".utf8) + Data(repeating: 0, count: 60)
        if !VipsCoder.untrustedLoadersAllowed {
            #expect(throws: ImageError.untrustedFormat("magickload")) { try manager.decode(bmp, options: .init()) }
        }
    }

    // Mirrors SDWebImageDownloaderTests `test22ThatCustomDecoderWorksForImageDownload`,
    // end to end: a manager given the coders loads an image only the added coder reads.
    @Test("ImageManager loads QOI through a coders manager holding QOICoder")
    func imageManagerLoadsQOI() async throws {
        let coders = ImageCodersManager()
        coders.addCoder(QOICoder())
        let manager = ImageManager(cache: TestCaches.make(), loader: ImageLoaders([DataURLLoader()]), coder: coders)
        let url = try #require(URL(string: "data:image/qoi;base64,\(qoi.base64EncodedString())"))
        let result = try await manager.loadImage(from: url)
        #expect(result.image?.format == .qoi)
        #expect(result.image?.pixelSize == PixelSize(width: 16, height: 16))
    }

    // Run under the thread sanitizer: swift test --sanitize=thread --filter ImageCodersManagerTests
    @Test("concurrent addCoder, removeCoders, coders and decode from many tasks")
    func concurrentChangesAndDecodes() async throws {
        let manager = ImageCodersManager()
        let jpeg = self.jpeg, qoi = self.qoi
        let outcomes = await withTaskGroup(of: String.self) { group in
            for index in 0..<96 {
                group.addTask {
                    do {
                        switch index % 6 {
                        case 0:
                            manager.addCoder(try StubJPEGCoder())
                            return "ok"
                        case 1:
                            manager.addCoder(QOICoder())
                            return "ok"
                        case 2:
                            manager.removeCoders { $0 is StubJPEGCoder || $0 is QOICoder }
                            return "ok"
                        case 3:
                            let size = try manager.decode(jpeg, options: .init()).pixelSize
                            return size == StubJPEGCoder.size || size == PixelSize(width: 40, height: 30) ? "ok" : "wrong size \(size)"
                        case 4:
                            // QOICoder may or may not be held at this moment.
                            do {
                                let image = try manager.decode(qoi, options: .init())
                                return image.format == .qoi ? "ok" : "wrong format"
                            } catch let error as ImageError {
                                guard case .badImageData(let reason) = error, reason.contains("QOICoder") else { return "unexpected \(error)" }
                                return "ok"
                            }
                        default:
                            let coders = manager.coders
                            return coders.first is VipsCoder ? "ok" : "VipsCoder lost"
                        }
                    } catch {
                        return "unexpected \(error)"
                    }
                }
            }
            var outcomes: [String] = []
            for await outcome in group { outcomes.append(outcome) }
            return outcomes
        }
        #expect(outcomes.count == 96)
        #expect(outcomes.allSatisfy { $0 == "ok" }, "\(outcomes.filter { $0 != "ok" })")
    }
}
