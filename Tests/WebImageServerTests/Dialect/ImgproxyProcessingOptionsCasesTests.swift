import Foundation
import Testing
import WebImage
@testable import WebImageServer

// imgproxy options/parser/processing_options_test.go: what a path parses to. imgproxy's
// ParsePath takes the path after the signature; here it follows the `unsafe` segment.
//
// Not ported, with the reason:
// - TestParsePathWebpDetection, …Enforce, …Avif…, …Jxl…: the proxy negotiates formats from
//   Accept after parsing (FormatNegotiation, tested in AcceptParsingTests).
// - TestParsePathPreserveHDR: `preserve_hdr:1` is refused with a 400 that says why (results
//   are 8 bits a channel); `preserveHDR` below checks that, and that `preserve_hdr:0` is accepted.
@Suite("imgproxy processing_options_test.go")
struct ImgproxyProcessingOptionsCasesTests {
    static let parser = ProxyURLParser(keys: [])
    static let origin = "http://images.dev/lorem/ipsum.jpg"
    static let originWithQuery = "http://images.dev/lorem/ipsum.jpg?param=value"

    static func parse(_ path: String, parser: ProxyURLParser = parser) throws -> ProxyRequest {
        try parser.parse(path: "/unsafe" + path)
    }

    @Test("imgproxy TestParsePathOnlyPresets, TestParseBase64URLOnlyPresets")
    func onlyPresets() throws {
        let parser = ProxyURLParser(keys: [], presets: ["test1": "blur:0.2", "test2": "quality:50"], onlyPresets: true)
        for (path, source) in [
            ("/test1:test2/plain/\(Self.origin)@png", Self.origin),
            ("/test1:test2/\(base64URL(Self.originWithQuery)).png", Self.originWithQuery),
        ] {
            let request = try Self.parse(path, parser: parser)
            #expect(abs((request.options.blur ?? 0) - 0.2) < 0.0001, "\(path)")
            #expect(request.options.quality == 50 && request.options.format == .png, "\(path)")
            #expect(request.source.absoluteString == source)
        }
    }

    @Test("imgproxy TestParseBase64URL, TestParseBase64URLWithoutExtension")
    func base64Source() throws {
        let withExtension = try Self.parse("/size:100:100/\(base64URL(Self.originWithQuery)).png")
        #expect(withExtension.source.absoluteString == Self.originWithQuery && withExtension.options.format == .png)
        let without = try Self.parse("/size:100:100/\(base64URL(Self.originWithQuery))")
        #expect(without.source.absoluteString == Self.originWithQuery && without.options.format == nil)
    }

    @Test("imgproxy TestParsePlainURL, TestParsePlainURLWithoutExtension, TestParsePlainURLEscaped")
    func plainURL() throws {
        let withExtension = try Self.parse("/size:100:100/plain/\(Self.origin)@png")
        #expect(withExtension.source.absoluteString == Self.origin && withExtension.options.format == .png)
        let without = try Self.parse("/size:100:100/plain/\(Self.origin)")
        #expect(without.source.absoluteString == Self.origin && without.options.format == nil)
        // Go's url.PathEscape of the URL with its query.
        let escaped = try Self.parse("/size:100:100/plain/http:%2F%2Fimages.dev%2Florem%2Fipsum.jpg%3Fparam=value@png")
        #expect(escaped.source.absoluteString == Self.originWithQuery && escaped.options.format == .png)
    }

    @Test("imgproxy TestParsePathFormat, …Resize, …ResizingType, …Size, …Width, …Height, …Enlarge")
    func sizeOptions() throws {
        #expect(try Self.parse("/format:webp/plain/\(Self.origin)").options.format == .webp)
        let resize = try Self.parse("/resize:fill:100:200:1/plain/\(Self.origin)").options
        #expect(resize.resizingType == .fill && resize.width == 100 && resize.height == 200 && resize.enlarge)
        #expect(try Self.parse("/resizing_type:fill/plain/\(Self.origin)").options.resizingType == .fill)
        let size = try Self.parse("/size:100:200:1/plain/\(Self.origin)").options
        #expect(size.width == 100 && size.height == 200 && size.enlarge)
        #expect(try Self.parse("/width:100/plain/\(Self.origin)").options.width == 100)
        #expect(try Self.parse("/height:100/plain/\(Self.origin)").options.height == 100)
        #expect(try Self.parse("/enlarge:1/plain/\(Self.origin)").options.enlarge)
    }

    @Test("imgproxy TestParsePathExtend, …ExtendSmartGravity, …ExtendReplicateGravity")
    func extend() throws {
        let options = try Self.parse("/extend:1:so:10:20/plain/\(Self.origin)").options
        #expect(options.extend && options.extendGravity == .anchor(.south, xOffset: 10, yOffset: 20))
        #expect(throws: ProxyError.self) { try Self.parse("/extend:1:sm/plain/\(Self.origin)") }
        #expect(throws: ProxyError.self) { try Self.parse("/extend:1:re/plain/\(Self.origin)") }
    }

    @Test("imgproxy TestParsePathGravity, …GravityFocusPoint, …GravityReplicate")
    func gravity() throws {
        #expect(try Self.parse("/gravity:soea/plain/\(Self.origin)").options.gravity == .anchor(.southEast, xOffset: 0, yOffset: 0))
        #expect(try Self.parse("/gravity:fp:0.5:0.75/plain/\(Self.origin)").options.gravity == .focusPoint(x: 0.5, y: 0.75))
        #expect(throws: ProxyError.self) { try Self.parse("/gravity:re/plain/\(Self.origin)") }
    }

    @Test("imgproxy TestParsePathCrop, …CropGravity, …CropGravityReplicate")
    func crop() throws {
        #expect(try Self.parse("/crop:100:200/plain/\(Self.origin)").options.crop == CropOption(width: 100, height: 200, gravity: nil))
        #expect(try Self.parse("/crop:100:200:nowe:10:20/plain/\(Self.origin)").options.crop
            == CropOption(width: 100, height: 200, gravity: .anchor(.northWest, xOffset: 10, yOffset: 20)))
        #expect(throws: ProxyError.self) { try Self.parse("/crop:100:200:re/plain/\(Self.origin)") }
    }

    @Test("imgproxy TestParsePathQuality, …Background, …BackgroundHex, …BackgroundDisable, …Blur, …Sharpen, …Dpr")
    func values() throws {
        #expect(try Self.parse("/quality:55/plain/\(Self.origin)").options.quality == 55)
        #expect(try Self.parse("/background:128:129:130/plain/\(Self.origin)").options.background == ImageColor(red: 128, green: 129, blue: 130))
        #expect(try Self.parse("/background:ffddee/plain/\(Self.origin)").options.background == ImageColor(red: 0xFF, green: 0xDD, blue: 0xEE))
        #expect(try Self.parse("/background:fff/background:/plain/\(Self.origin)").options.background == nil)
        #expect(try Self.parse("/blur:0.2/plain/\(Self.origin)").options.blur == 0.2)
        #expect(try Self.parse("/sharpen:0.2/plain/\(Self.origin)").options.sharpen == 0.2)
        #expect(try Self.parse("/dpr:2/plain/\(Self.origin)").options.dpr == 2)
    }

    @Test("imgproxy TestParsePathWatermark")
    func watermark() throws {
        let watermark = try #require(try Self.parse("/watermark:0.5:soea:10:20:0.6/plain/\(Self.origin)").options.watermark)
        #expect(watermark.opacity == 0.5 && watermark.position == .anchor(.southEast))
        #expect(watermark.xOffset == 10 && watermark.yOffset == 20 && watermark.scale == 0.6)
    }

    @Test("imgproxy TestParsePathPreset, …PresetDefault, …PresetLoopDetection")
    func presets() throws {
        let two = ProxyURLParser(keys: [], presets: ["test1": "resizing_type:fill", "test2": "blur:0.2/quality:50"])
        let options = try Self.parse("/preset:test1:test2/plain/\(Self.origin)", parser: two).options
        #expect(options.resizingType == .fill && options.blur == 0.2 && options.quality == 50)

        let withDefault = ProxyURLParser(keys: [], presets: ["default": "resizing_type:fill/blur:0.2/quality:50"])
        let defaulted = try Self.parse("/quality:70/plain/\(Self.origin)", parser: withDefault).options
        #expect(defaulted.resizingType == .fill && defaulted.blur == 0.2 && defaulted.quality == 70)

        let loop = ProxyURLParser(keys: [], presets: ["test1": "resizing_type:fill/preset:test2", "test2": "blur:0.2/preset:test1"])
        let looped = try Self.parse("/preset:test1/plain/\(Self.origin)", parser: loop).options
        #expect(looped.resizingType == .fill && looped.blur == 0.2)
    }

    @Test("imgproxy TestParsePathCachebuster, …StripMetadata")
    func flags() throws {
        #expect(try Self.parse("/cachebuster:123/plain/\(Self.origin)").options.cacheBuster == "123")
        #expect(try Self.parse("/strip_metadata:true/plain/\(Self.origin)").options.stripMetadata == true)
    }

    @Test("imgproxy TestParseSkipProcessing, …SkipProcessingInvalid")
    func skipProcessing() throws {
        #expect(try Self.parse("/skp:jpg:png/plain/\(Self.origin)").options.skipProcessing == [.jpeg, .png])
        let error = parseError("/unsafe/skp:jpg:png:bad_format/plain/\(Self.origin)")
        #expect(error?.status == 400 && error?.message.contains("bad_format") == true)
    }

    @Test("imgproxy TestParseExpires, …ExpiresExpired")
    func expires() throws {
        #expect(try Self.parse("/exp:32503669200/plain/\(Self.origin)").options.expires == 32_503_669_200)
        let expired = parseError("/unsafe/exp:1609448400/plain/\(Self.origin)")
        #expect(expired?.status == 404 && expired?.message.contains("expired") == true)
    }

    @Test(
        "imgproxy TestParseAllowedOptions: only the IMGPROXY_ALLOWED_PROCESSING_OPTIONS names, as written; presets may use any",
        arguments: [("w:100/h:200", true), ("w:100/h:200/blur:10", false), ("w:100/h:200/pr:test1", true), ("w:100/h:200/pr:test1/blur:10", false)]
    )
    func allowedProcessingOptions(options: String, allowed: Bool) throws {
        var config = ServerConfig()
        try ImgproxyEnvironment.apply(["IMGPROXY_ALLOWED_PROCESSING_OPTIONS": "w, h, pr"], to: &config)
        #expect(config.signing.allowedProcessingOptions == ["w", "h", "pr"])
        let parser = ProxyURLParser(keys: [], presets: ["test1": "blur:0.2"], allowedOptions: Set(config.signing.allowedProcessingOptions))
        let source = Data("http://images.dev/lorem/ipsum.jpg?param=value".utf8).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        let error = parseError("/insecure/\(options)/\(source).png", parser: parser)
        if allowed {
            #expect(error == nil)
        } else {
            #expect(error?.status.code == 403)
            #expect(error?.answered(under: .imgproxy).status.code == 404)
            #expect(error?.message.contains("'blur' is not allowed") == true)
        }
    }

    static func base64(_ text: String) -> String {
        Data(text.utf8).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    /// imgproxy's replacements of these tests: `^test://([^/]*)/` → `test2://images.dev/${1}/dolor/`, `^test2://` → `http://`.
    static let replacements = try! SourceURLRewrite.replacements(from: "test://*/=test2://images.dev/${1}/dolor/;test2://=http://")

    @Test("imgproxy TestParseBase64URLWithFilename")
    func base64WithFilename() throws {
        let parser = ProxyURLParser(keys: [], base64URLIncludesFilename: true)
        let request = try Self.parse("/size:100:100/\(Self.base64(Self.originWithQuery)).png/puppy.jpg", parser: parser)
        #expect(request.source.absoluteString == Self.originWithQuery)
        #expect(request.options.format == .png)
    }

    @Test("imgproxy TestParseBase64URLWithBase, TestParsePlainURLWithBase, TestParsePlainURLEscapedWithBase")
    func withBase() throws {
        let parser = ProxyURLParser(keys: [], sourceRewrite: SourceURLRewrite(baseURL: "http://images.dev/"))
        let base64 = try Self.parse("/size:100:100/\(Self.base64("lorem/ipsum.jpg?param=value")).png", parser: parser)
        #expect(base64.source.absoluteString == "http://images.dev/lorem/ipsum.jpg?param=value")
        #expect(base64.options.format == .png)
        let plain = try Self.parse("/size:100:100/plain/lorem/ipsum.jpg@png", parser: parser)
        #expect(plain.source.absoluteString == "http://images.dev/lorem/ipsum.jpg")
        #expect(plain.options.format == .png)
        let escaped = try Self.parse("/size:100:100/plain/lorem%2Fipsum.jpg%3Fparam%3Dvalue@png", parser: parser)
        #expect(escaped.source.absoluteString == "http://images.dev/lorem/ipsum.jpg?param=value")
        // A URL that already starts with the base keeps it once.
        #expect(try Self.parse("/plain/http://images.dev/a.jpg", parser: parser).source.absoluteString == "http://images.dev/a.jpg")
    }

    @Test("imgproxy TestParseBase64URLWithReplacement, TestParsePlainURLWithReplacement")
    func withReplacement() throws {
        let parser = ProxyURLParser(keys: [], sourceRewrite: SourceURLRewrite(replacements: Self.replacements))
        let base64 = try Self.parse("/size:100:100/\(Self.base64("test://lorem/ipsum.jpg?param=value")).png", parser: parser)
        #expect(base64.source.absoluteString == "http://images.dev/lorem/dolor/ipsum.jpg?param=value")
        #expect(base64.options.format == .png)
        let plain = try Self.parse("/size:100:100/plain/test://lorem/ipsum.jpg@png", parser: parser)
        #expect(plain.source.absoluteString == "http://images.dev/lorem/dolor/ipsum.jpg")
    }

    @Test("imgproxy TestParseWithArgumentsSeparator")
    func argumentsSeparator() throws {
        let parser = ProxyURLParser(keys: [], presets: ["big": "size,300,300"], argumentsSeparator: ",")
        let request = try Self.parse("/size,100,100,1/plain/http://images.dev/lorem/ipsum.jpg", parser: parser)
        #expect(request.options.width == 100 && request.options.height == 100 && request.options.enlarge)
        // Presets are written with the same separator.
        #expect(try Self.parse("/preset,big/plain/http://images.dev/lorem/ipsum.jpg", parser: parser).options.width == 300)
    }

    @Test("preserve_hdr: off is accepted, on is refused saying why")
    func preserveHDR() throws {
        #expect(try Self.parse("/ph:0/plain/\(Self.origin)").options == Self.parse("/plain/\(Self.origin)").options)
        let refused = parseError("/unsafe/preserve_hdr:1/plain/\(Self.origin)")
        #expect(refused?.status == 400 && refused?.message.contains("8 bits") == true)
    }

    @Test(
        "imgproxy TestParsePathClientHints",
        arguments: [(ClientHints(), 0, 1.0), (ClientHints(width: 100), 100, 1.0), (ClientHints(dpr: 2), 0, 2.0), (ClientHints(dpr: 2, width: 100), 50, 2.0)]
    )
    func clientHints(hints: ClientHints, width: Int, dpr: Double) throws {
        let request = try Self.parser.parse(path: "/unsafe/plain/http://images.dev/lorem/ipsum.jpg@png", hints: hints)
        #expect(request.options.width == width && request.options.dpr == dpr)
    }

    @Test("imgproxy TestParsePathClientHintsRedefine")
    func clientHintsRedefined() throws {
        let request = try Self.parser.parse(path: "/unsafe/width:150/dpr:3.0/plain/http://images.dev/lorem/ipsum.jpg@png", hints: ClientHints(dpr: 2, width: 100))
        #expect(request.options.width == 150 && request.options.dpr == 3)
    }
}
