import CVips
import Foundation
import Testing
@testable import WebImage
import WebImageTestSupport

@Suite("Encoding: colour profile and copyright")
struct EncodeMetadataTests {
    let coder = VipsCoder.shared

    /// PNG pixels of (200, 30, 30) tagged with libvips' built-in Display P3 profile.
    static func p3PNG() throws -> Data {
        let image = try TransformFixtures.solid([200, 30, 30], width: 8, height: 8)
        let tagged = try Vips.run("tagging P3") { wi_icc_transform(image.handle.pointer, $0, "p3", "srgb", 0) }
        var buffer: UnsafeMutableRawPointer?
        var length = 0
        guard wi_pngsave(tagged.pointer, &buffer, &length, 6, 0, 0) == 0, let buffer else { throw ImageError.encodingFailed(Vips.takeError()) }
        defer { wi_g_free(buffer) }
        return Data(bytes: buffer, count: length)
    }

    static func contains(_ data: Data, _ text: String) -> Bool {
        data.range(of: Data(text.utf8)) != nil
    }

    @Test("stripping keeps the EXIF copyright only when asked; not stripping keeps everything")
    func copyright() throws {
        let source = try TestImages.jpeg(make: "CamMaker", copyright: "ACME Pictures")
        let image = try coder.decode(source, options: ImageDecodeOptions())
        let stripped = try coder.encode(image, options: ImageEncodeOptions(format: .jpeg, stripMetadata: true))
        #expect(!Self.contains(stripped, "ACME Pictures") && !Self.contains(stripped, "CamMaker"))
        let kept = try coder.encode(image, options: ImageEncodeOptions(format: .jpeg, stripMetadata: true, keepCopyright: true))
        #expect(Self.contains(kept, "ACME Pictures"), "the copyright stays")
        #expect(!Self.contains(kept, "CamMaker"), "every other tag goes")
        let all = try coder.encode(image, options: ImageEncodeOptions(format: .jpeg, stripMetadata: false))
        #expect(Self.contains(all, "ACME Pictures") && Self.contains(all, "CamMaker"))
    }

    @Test("the colour profile: kept, converted to sRGB and dropped, or stripped with the metadata")
    func colourProfile() throws {
        let image = try coder.decode(try Self.p3PNG(), options: ImageDecodeOptions())
        let original = try image.pixel(x: 4, y: 4)
        // Stripped with the rest (nil): no profile, the numbers untouched.
        let stripped = try coder.encode(image, options: ImageEncodeOptions(format: .png))
        #expect(!Self.contains(stripped, "iCCP"))
        #expect(try coder.decode(stripped, options: ImageDecodeOptions()).pixel(x: 4, y: 4) == original)
        // Kept even though the metadata is stripped.
        let kept = try coder.encode(image, options: ImageEncodeOptions(format: .png, keepColorProfile: true))
        #expect(Self.contains(kept, "iCCP"))
        #expect(try coder.decode(kept, options: ImageDecodeOptions()).pixel(x: 4, y: 4) == original)
        // Converted: the same colour in sRGB numbers (P3's red is beyond sRGB's, so red rises).
        let converted = try coder.encode(image, options: ImageEncodeOptions(format: .png, stripMetadata: false, keepColorProfile: false))
        #expect(!Self.contains(converted, "iCCP"))
        let srgb = try coder.decode(converted, options: ImageDecodeOptions()).pixel(x: 4, y: 4)
        #expect(srgb[0] > original[0] + 3, "\(original) → \(srgb)")
    }

    @Test("variant encoding keys name the profile and copyright choices")
    func keys() {
        #expect(VariantEncoding(keepColorProfile: true).key.hasSuffix(",keep-icc"))
        #expect(VariantEncoding(keepColorProfile: false, keepCopyright: true).key.hasSuffix(",srgb,keep-copyright"))
        #expect(!VariantEncoding().key.contains("icc"))
        let options = VariantEncoding(keepColorProfile: false, keepCopyright: true).encodeOptions(for: .webp)
        #expect(options.keepColorProfile == false && options.keepCopyright)
    }
}
