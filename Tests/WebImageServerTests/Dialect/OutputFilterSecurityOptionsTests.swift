import Foundation
import Testing
import WebImage
@testable import WebImageServer

// The output, handling, filter and security options: names and aliases, values, variant
// keys, and 400 (403 for security options the server does not allow) for bad input.
@Suite("Proxy URL: output, filter and security options")
struct OutputFilterSecurityOptionsTests {
    let parser = ProxyURLParser(keys: [])
    let permissive = ProxyURLParser(keys: [], allowSecurityOptions: true)
    static let source = "http://example.com/a.jpg"

    func options(_ text: String, parser: ProxyURLParser? = nil) throws -> ProcessingOptions {
        try (parser ?? permissive).parse(path: "/_/\(text)/plain/\(Self.source)").options
    }

    /// Pairs that mean the same: full name and alias, spellings, order.
    static let equivalent: [(String, String)] = [
        ("background_alpha:0.5", "bga:0.50"),
        ("bga:1", "w:0"),
        ("strip_color_profile:1", "scp:true"),
        ("keep_copyright:0", "kcr:f"),
        ("enforce_thumbnail:1", "eth:t"),
        ("format_quality:jpg:80:webp:70", "fq:webp:70:jpeg:80"),
        ("fq:jpg:80/fq:jpg:0", "w:0"),
        ("skip_processing:jpg:png", "skp:png/skp:jpeg"),
        ("trim:10", "t:10::0:0"),
        ("t:10:FF0000:1", "t:10:ff0000:true:0"),
        ("t:10/t:", "w:0"),
        ("pixelate:8", "pix:8"),
        ("pix:1", "pix:0"),
        ("watermark:0.5:soea:10:20:0.6", "wm:0.5:soea:10:20:0.6"),
        ("wm:0.5", "wm:0.5:ce:0:0:0"),
        ("wm:1:re/wm:0.5", "wm:0.5:re"),
        ("wm:0.5:no/wm:0", "w:0"),
        ("max_src_resolution:2.5", "msr:2.500"),
        ("max_src_file_size:1024", "msfs:1024"),
        ("max_animation_frames:5", "maf:5"),
        ("max_animation_frame_resolution:0.5", "mafr:.5"),
        ("max_result_dimension:100", "mrd:100"),
    ]

    @Test("every option and alias parses to the same options and variant key", arguments: equivalent)
    func aliases(_ pair: (String, String)) throws {
        let left = try options(pair.0), right = try options(pair.1)
        #expect(left == right)
        #expect(left.variantKey == right.variantKey)
    }

    @Test("parsed values land in the right fields")
    func values() throws {
        let parsed = try options("bga:0.25/scp:0/kcr:1/eth:1/fq:avif:40:jpg:85/skp:gif/t:5.5:f80:1:0/pix:12/msr:2.5/msfs:2048/maf:7/mafr:0.3/mrd:640")
        #expect(parsed.backgroundAlpha == 0.25)
        #expect(parsed.stripColorProfile == false && parsed.keepCopyright == true && parsed.enforceThumbnail == true)
        #expect(parsed.formatQuality == [.avif: 40, .jpeg: 85])
        #expect(parsed.skipProcessing == [.gif])
        #expect(parsed.trim == TrimOption(threshold: 5.5, color: ImageColor(red: 255, green: 136, blue: 0), equalHorizontal: true, equalVertical: false))
        #expect(parsed.pixelate == 12)
        #expect(parsed.limits.maxSourceResolution == 2_500_000)
        #expect(parsed.limits.maxSourceFileSize == 2048)
        #expect(parsed.limits.maxAnimationFrames == 7)
        #expect(parsed.limits.maxAnimationFrameResolution == 300_000)
        #expect(parsed.limits.maxResultDimension == 640)
        #expect(parsed.variantKey == "bga:0.25/scp:0/kcr:1/eth:1/fq:avif:40:jpg:85/skp:gif/t:5.5:ff8800:1:0/pix:12/msr:2.5/msfs:2048/maf:7/mafr:0.3/mrd:640")
    }

    // imgproxy options/parser/processing_options_test.go: TestParsePathWatermark
    @Test("watermark: opacity, position, offsets and scale")
    func watermark() throws {
        let parsed = try options("watermark:0.5:soea:10:20:0.6")
        #expect(parsed.watermark == WatermarkOption(opacity: 0.5, position: .anchor(.southEast), xOffset: 10, yOffset: 20, scale: 0.6))
        #expect(try options("wm:1:re:0.1:-5").watermark == WatermarkOption(opacity: 1, position: .replicate, xOffset: 0.1, yOffset: -5))
    }

    // imgproxy options/parser/processing_options_test.go: TestParseSkipProcessing
    @Test("skip_processing lists formats; filename plain and base64; return_attachment")
    func handling() throws {
        #expect(try options("skp:jpg:png").skipProcessing == [.jpeg, .png])
        #expect(try options("fn:my%20file").filename == "my%20file", "as written, like imgproxy")
        #expect(try options("fn:\(base64URL("résumé \"1\"")):1").filename == "résumé \"1\"")
        #expect(try options("fn:\(base64URL("ab"))==:1").filename == "ab", "padding is accepted")
        #expect(try options("fn:abc:0").filename == "abc")
        #expect(try options("fn:abc/fn:").filename == nil)
        #expect(try options("att:1").returnAttachment == true)
    }

    @Test("filename and return_attachment leave the variant key alone; the key parses back")
    func headerOnlyOptions() throws {
        let base = try options("w:100").variantKey
        #expect(try options("w:100/fn:other/att:1").variantKey == base)
        let full = try options("w:100/bga:0.5/scp:1/kcr:1/eth:0/fq:webp:50/skp:png:jpg/t:3:00ff00:0:1/pix:4/wm:0.3:we:-2:0.25:0.5/msr:1/msfs:5/maf:2/mafr:0.001/mrd:50/fn:x")
        let key = full.variantKey
        #expect(try permissive.parse(path: "/_/\(key)/plain/\(Self.source)").options.variantKey == key)
    }

    @Test("the URL's format narrows skip_processing to itself")
    func passthroughFormats() throws {
        #expect(try options("skp:jpg:png").passthroughFormats == [.jpeg, .png])
        #expect(try options("skp:jpg:png/f:png").passthroughFormats == [.png])
        #expect(try options("skp:jpg/f:webp").passthroughFormats == [])
    }

    @Test("security options are 403 unless the server allows them, naming the segment; also in presets")
    func securityNotAllowed() throws {
        for segment in ["msr:1", "max_src_file_size:10", "maf:1", "mafr:1", "mrd:10"] {
            let error = parseError("/_/\(segment)/plain/\(Self.source)", parser: parser)
            #expect(error?.status == 403, "\(segment)")
            #expect(error?.message.contains("'\(segment)'") == true && error?.message.contains("--allow-security-options") == true, "\(error?.message ?? "")")
        }
        let presets = ProxyURLParser(keys: [], presets: ["big": "msr:100"])
        #expect(throws: ProxyError.self) { try presets.validatePresets() }
        #expect(throws: Never.self) { try ProxyURLParser(keys: [], presets: ["big": "msr:100"], allowSecurityOptions: true).validatePresets() }
    }

    /// Bad input and a piece of the message; every one is 400 and quotes its segment.
    static let malformed: [(String, String)] = [
        ("bga:1.5", "out of range 0…1"),
        ("bga:-0.1", "out of range"),
        ("bga:x", "not a number"),
        ("bga:0.5:1", "expected 1 argument"),
        ("eth:1:1", "expected 1 argument"),
        ("fq:jpg", "expected 2 to 32 arguments"),
        ("fq:jpg:80:png", "missing the quality for 'png'"),
        ("fq:svg:80", "not a writable image format"),
        ("fq:jpg:101", "out of range 0…100"),
        ("fq:jpg:high", "not a whole number"),
        ("skp:", "is not an image format"),
        ("skp:jpg:nope", "'nope' is not an image format"),
        // imgproxy options/parser/processing_options_test.go: TestParseSkipProcessingInvalid
        ("skp:jpg:png:bad_format", "'bad_format' is not an image format"),
        ("fn:a:b:c", "expected 1 to 2 arguments"),
        ("fn:!!!:1", "not URL-safe base64"),
        ("fn:\(String(repeating: "x", count: 256))", "limit is 255"),
        ("t:1001", "out of range 0…1000"),
        ("t:-1", "out of range"),
        ("t:10:ff00", "not a hex colour"),
        ("t:1:2:3:4:5", "expected 1 to 4 arguments"),
        ("pix:-1", "out of range"),
        ("pix:1.5", "not a whole number"),
        ("pix:1:2", "expected 1 argument"),
        ("wm:", "not a number"),
        ("wm:1.5", "out of range 0…1"),
        ("wm:1:up", "unknown watermark position 'up'"),
        ("wm:1:ce:abc", "not a number"),
        ("wm:1:ce:0:0:101", "out of range 0…100"),
        ("wm:1:ce:0:0:0.5:1", "expected 1 to 5 arguments"),
        ("msr:-1", "out of range"),
        ("msr:lots", "not a number"),
        ("msfs:-5", "out of range"),
        ("maf:0", "out of range 1…"),
        ("mafr:x", "not a number"),
        ("mrd:1.5", "not a whole number"),
        ("mrd:1:2", "expected 1 argument"),
    ]

    @Test("bad input is 400 naming the segment", arguments: malformed)
    func malformedInput(_ example: (String, String)) {
        let error = parseError("/_/\(example.0)/plain/\(Self.source)", parser: permissive)
        #expect(error?.status == 400, "\(example.0)")
        #expect(error?.message.contains("option '\(example.0.prefix(100))'") == true, "\(example.0): \(error?.message ?? "parsed")")
        #expect(error?.message.contains(example.1) == true, "\(example.0): \(error?.message ?? "parsed")")
    }

    @Test("the transformer's key names the watermark image only when a watermark is put on")
    func transformerKey() throws {
        let mark = ProxyWatermark(image: try Image(pixels: [255, 0, 0], width: 1, height: 1, channels: 3), digest: "abc123")
        #expect(ProxyTransformer(options: try options("wm:0.5"), watermark: mark).key == "proxy-wm:0.5:ce:0:0:0,wmid:abc123")
        #expect(ProxyTransformer(options: try options("w:10"), watermark: mark).key == "proxy-w:10")
        #expect(ProxyTransformer(options: try options("wm:0.5")).key == "proxy-wm:0.5:ce:0:0:0")
    }
}
