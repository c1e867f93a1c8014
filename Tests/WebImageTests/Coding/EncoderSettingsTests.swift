import Foundation
import Testing
@testable import WebImage
import WebImageTestSupport

/// The encoder settings of ``ImageEncodeOptions`` and ``VariantEncoding``, read back from
/// the bytes they write: JPEG markers, PNG chunks, and bytes that differ.
@Suite("Encoder settings")
struct EncoderSettingsTests {
    let coder = VipsCoder.shared

    static func pngHeader(_ data: Data) throws -> (bitDepth: UInt8, colorType: UInt8, interlace: UInt8) {
        try #require(EncodedStructure.pngHeader(data))
    }

    @Test("progressive JPEG: a progressive frame (SOF2) instead of a baseline one (SOF0)")
    func progressiveJPEG() throws {
        let image = try TestImages.gradient(width: 96, height: 64)
        let baseline = EncodedStructure.jpegMarkers(try coder.encode(image, options: .init(format: .jpeg)))
        let progressive = EncodedStructure.jpegMarkers(try coder.encode(image, options: .init(format: .jpeg, progressive: true)))
        #expect(baseline.contains(0xC0) && !baseline.contains(0xC2))
        #expect(progressive.contains(0xC2) && !progressive.contains(0xC0))
    }

    @Test("interlaced PNG: IHDR's interlace method is Adam7 (1); progressive alone leaves PNG as it is")
    func interlacedPNG() throws {
        let image = try TestImages.gradient(width: 64, height: 64)
        #expect(try Self.pngHeader(try coder.encode(image, options: .init(format: .png))).interlace == 0)
        #expect(try Self.pngHeader(try coder.encode(image, options: .init(format: .png, progressive: true))).interlace == 0)
        let interlaced = try coder.encode(image, options: .init(format: .png, pngInterlaced: true))
        #expect(try Self.pngHeader(interlaced).interlace == 1)
        #expect(try coder.decode(interlaced, options: .init()).pixelSize == image.pixelSize)
    }

    /// imgproxy's `vips_pngsave_go`: the palette's bit depth is the fewest of 1, 2, 4 and 8
    /// bits that hold the colours asked for.
    @Test(
        "palette PNG: colour type 3, the bit depth that holds the colours, and a PLTE of no more",
        arguments: [(2, UInt8(1)), (4, 2), (5, 4), (16, 4), (17, 8), (256, 8)]
    )
    func palettePNG(colors: Int, bitDepth: UInt8) throws {
        let image = try TestImages.gradient(width: 64, height: 64)
        let data = try coder.encode(image, options: .init(format: .png, pngPaletteColors: colors))
        let header = try Self.pngHeader(data)
        #expect(header.colorType == 3 && header.bitDepth == bitDepth)
        let entries = try #require(EncodedStructure.pngPaletteCount(data))
        #expect(entries <= 1 << Int(bitDepth))
        let full = try coder.encode(image, options: .init(format: .png))
        #expect(try Self.pngHeader(full).colorType != 3)
        #expect(try coder.decode(data, options: .init()).pixelSize == image.pixelSize)
    }

    @Test("a palette PNG of an image with alpha keeps its transparency")
    func palettePNGWithAlpha() throws {
        let data = try coder.encode(try TestImages.halfTransparent(width: 64, height: 32), options: .init(format: .png, pngPaletteColors: 16))
        #expect(try Self.pngHeader(data).colorType == 3)
        #expect(EncodedStructure.pngChunks(data).contains { $0.type == "tRNS" })
    }

    @Test("WebP effort and preset, AVIF effort and JPEG XL effort change the bytes")
    func effortsChangeBytes() throws {
        let image = try TestImages.gradient(width: 96, height: 96)
        func encode(_ options: ImageEncodeOptions) throws -> Data {
            let data = try coder.encode(image, options: options)
            #expect(ImageFormat(data: data) == options.format)
            return data
        }
        #expect(try encode(.init(format: .webp, webpEffort: 0)) != encode(.init(format: .webp, webpEffort: 6)))
        #expect(try encode(.init(format: .webp, webpPreset: .photo)) != encode(.init(format: .webp, webpPreset: .text)))
        #expect(try encode(.init(format: .avif, avifEffort: 0)) != encode(.init(format: .avif, avifEffort: 6)))
        #expect(try encode(.init(format: .jxl, jxlEffort: 3)) != encode(.init(format: .jxl, jxlEffort: 7)))
        // Below the least effort the linked libvips takes, the least it takes.
        _ = try encode(.init(format: .jxl, jxlEffort: 1))
    }

    @Test("the defaults are libvips'")
    func libvipsDefaults() {
        let options = ImageEncodeOptions(format: .webp)
        #expect(!options.progressive && !options.pngInterlaced && options.pngPaletteColors == nil)
        #expect(options.webpEffort == 4 && options.webpPreset == .default && options.avifEffort == 4 && options.jxlEffort == 7)
        let encoding = VariantEncoding()
        #expect(encoding.encodeOptions(for: .webp) == ImageEncodeOptions(format: .webp))
    }

    /// Each out-of-range setting, the field its error names, and the value.
    static let outOfRange: [(String, ImageEncodeOptions)] = [
        ("pngPaletteColors", .init(format: .png, pngPaletteColors: 1)),
        ("pngPaletteColors", .init(format: .png, pngPaletteColors: 257)),
        ("webpEffort", .init(format: .webp, webpEffort: -1)),
        ("webpEffort", .init(format: .webp, webpEffort: 7)),
        ("avifEffort", .init(format: .avif, avifEffort: 10)),
        ("jxlEffort", .init(format: .jxl, jxlEffort: 0)),
        ("jxlEffort", .init(format: .jxl, jxlEffort: 10)),
    ]

    @Test("a setting out of its range fails the encode and the request, naming the field")
    func outOfRangeIsRefused() throws {
        let image = try TestImages.quadrants(width: 8, height: 8)
        for (field, options) in Self.outOfRange {
            do throws(ImageError) {
                _ = try coder.encode(image, options: options)
                Issue.record("\(field) was accepted")
            } catch {
                guard case .invalidRequest(let named, let reason) = error else { Issue.record("\(field): \(error)"); continue }
                #expect(named == "ImageEncodeOptions." + field)
                #expect(reason.contains("must be"))
            }
            let request = ImageRequest(url: URL(string: "https://example.com/a.jpg")!, output: .encoded(VariantEncoding(options: options)))
            do throws(ImageError) {
                try request.validate()
                Issue.record("\(field) was accepted in a request")
            } catch {
                guard case .invalidRequest(let named, _) = error else { Issue.record("\(field): \(error)"); continue }
                #expect(named == "VariantEncoding.options." + field)
            }
        }
        for (_, options) in Self.outOfRange {
            var fixed = options
            fixed.pngPaletteColors = nil
            fixed.webpEffort = 4
            fixed.avifEffort = 4
            fixed.jxlEffort = 7
            try fixed.validate()
        }
    }

    @Test("the variant key names every setting that changes the bytes, and only where it is not the default")
    func variantKey() {
        let plain = VariantEncoding(format: .fixed(.webp))
        #expect(plain.key == "f:webp,q:80")
        let settings: [VariantEncoding] = [
            .init(format: .fixed(.webp), options: .init(format: .webp, progressive: true)),
            .init(format: .fixed(.webp), options: .init(format: .webp, pngInterlaced: true)),
            .init(format: .fixed(.webp), options: .init(format: .webp, pngPaletteColors: 16)),
            .init(format: .fixed(.webp), options: .init(format: .webp, pngPaletteColors: 256)),
            .init(format: .fixed(.webp), options: .init(format: .webp, webpEffort: 6)),
            .init(format: .fixed(.webp), options: .init(format: .webp, webpPreset: .photo)),
            .init(format: .fixed(.webp), options: .init(format: .webp, avifEffort: 1)),
            .init(format: .fixed(.webp), options: .init(format: .webp, jxlEffort: 4)),
        ]
        let keys = settings.map(\.key)
        #expect(Set(keys + [plain.key]).count == settings.count + 1, "\(keys)")
    }
}
