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
        let tagged = try Vips.run("tagging P3") { wi_icc_transform_depth(image.handle.pointer, $0, "p3", "srgb", 8) }
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

    @Test("CM4: a decode converts to sRGB and drops the profile, or keeps both; an encode writes sRGB, the image's own profile, or a given one")
    func colourProfile() throws {
        let png = try Self.p3PNG()
        let converted = try coder.decode(png, options: ImageDecodeOptions())
        #expect(converted.colorProfile == nil)
        let srgb = try converted.pixel(x: 4, y: 4)
        #expect(zip(srgb, [200, 30, 30]).allSatisfy { abs(Int($0) - $1) <= 2 }, "\(srgb)")
        var keeping = ImageDecodeOptions()
        keeping.keepsColorProfile = true
        let kept = try coder.decode(png, options: keeping)
        let p3 = try kept.pixel(x: 4, y: 4)
        #expect(kept.colorProfile == ICCProfile.displayP3)
        #expect(p3[0] + 5 < srgb[0], "P3's numbers for an sRGB red are lower: \(p3) against \(srgb)")
        // Kept even though the metadata is stripped: the same numbers and profile.
        let source = try coder.encode(kept, options: ImageEncodeOptions(format: .png, colorProfile: .source))
        #expect(Self.contains(source, "iCCP"))
        let reread = try coder.decode(source, options: keeping)
        #expect(try reread.pixel(x: 4, y: 4) == p3 && reread.colorProfile == kept.colorProfile)
        // sRGB, with or without the rest of the metadata: converted with the profile, which goes.
        for stripMetadata in [true, false] {
            let written = try coder.encode(kept, options: ImageEncodeOptions(format: .png, stripMetadata: stripMetadata))
            #expect(!Self.contains(written, "iCCP"))
            let pixel = try coder.decode(written, options: keeping).pixel(x: 4, y: 4)
            #expect(zip(pixel, srgb).allSatisfy { abs(Int($0) - Int($1)) <= 1 }, "\(pixel) against \(srgb)")
        }
        // A given profile: converted to it from sRGB, and carried.
        let given = try coder.encode(converted, options: ImageEncodeOptions(format: .png, colorProfile: .profile(.displayP3)))
        let inP3 = try coder.decode(given, options: keeping)
        #expect(inP3.colorProfile == ICCProfile.displayP3)
        #expect(zip(try inP3.pixel(x: 4, y: 4), p3).allSatisfy { abs(Int($0) - Int($1)) <= 1 })
        // GIF carries no profile: written in sRGB whatever was asked.
        let gif = try coder.encode(kept, options: ImageEncodeOptions(format: .gif, colorProfile: .source))
        let gifPixel = try coder.decode(gif, options: ImageDecodeOptions()).pixel(x: 4, y: 4)
        #expect(zip(gifPixel, srgb).allSatisfy { abs(Int($0) - Int($1)) <= 8 }, "\(gifPixel) against \(srgb)")
    }

    @Test("variant encoding keys name the profile and copyright choices")
    func keys() {
        #expect(VariantEncoding(options: ImageEncodeOptions(format: .jpeg, colorProfile: .source)).key.hasSuffix(",color:source"))
        #expect(VariantEncoding(options: ImageEncodeOptions(format: .jpeg, colorProfile: .profile(.displayP3))).key.contains(",color:icc:" + ICCProfile.displayP3.digest))
        #expect(VariantEncoding(options: ImageEncodeOptions(format: .jpeg, keepCopyright: true)).key.hasSuffix(",keep-copyright"))
        #expect(!VariantEncoding().key.contains("color"))
        let options = VariantEncoding(options: ImageEncodeOptions(format: .jpeg, colorProfile: .source, keepCopyright: true)).encodeOptions(for: .webp)
        #expect(options.colorProfile == .source && options.keepCopyright)
    }
}
