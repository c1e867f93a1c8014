import Foundation
import Testing
import WebImage
@testable import WebImageServer

// The geometry options imgproxy's processing tests use (min-width, min-height, zoom,
// extend_aspect_ratio, auto_rotate, flip) and the leniency imgproxy URL builders rely on
// (Go's boolean spellings, empty arguments keeping the current values, offsets given singly).
@Suite("Proxy geometry options and leniency")
struct GeometryOptionsTests {
    static let source = "plain/http://example.com/a.jpg"

    static func options(_ text: String) throws -> ProcessingOptions {
        try ProxyURLParser(keys: []).parse(path: "/_/\(text)/\(source)").options
    }

    static let aliases: [(String, String)] = [
        ("min-width:120", "mw:120"),
        ("min-height:80", "mh:80"),
        ("zoom:1.5", "z:1.5:1.5"),
        ("zoom:2:0.5", "z:2:0.5"),
        ("extend_aspect_ratio:1", "exar:1:ce:0:0"),
        ("extend_ar:1:no:5", "exar:1:no:5:0"),
        ("auto_rotate:0", "ar:0"),
        ("auto_rotate:1", "w:0"),
        ("flip:1", "fl:1:0"),
        ("fl::1", "flip:0:1"),
        ("fl:1:1", "fl:t:TRUE"),
        ("mw:120/z:2", "z:2:2/min-width:120"),
    ]

    @Test("names and aliases mean the same; the variant key is stable and parses back", arguments: aliases)
    func aliasesAgree(_ example: (String, String)) throws {
        let left = try Self.options(example.0)
        let right = try Self.options(example.1)
        #expect(left == right, "\(example.0) vs \(example.1)")
        #expect(left.variantKey == right.variantKey)
        if !left.variantKey.isEmpty {
            #expect(try Self.options(left.variantKey) == left, "\(left.variantKey) parses back")
        }
    }

    @Test("each option changes the variant key")
    func distinctKeys() throws {
        let keys = try ["", "mw:10", "mh:10", "z:2", "z:2:1", "exar:1", "exar:1:no", "ar:0", "fl:1", "fl:0:1", "fl:1:1"].map { try Self.options($0).variantKey }
        #expect(Set(keys).count == keys.count, "\(keys)")
        #expect(ProxyTransformer(options: try Self.options("mw:10/fl:1")).key == "proxy-mw:10,fl:1:0")
    }

    static let badInput: [(String, String)] = [
        ("mw:-1", "out of range"), ("mw:x", "not a whole number"), ("mw:1:2", "expected 1 argument"),
        ("mh:10000001", "out of range"), ("mh:", "not a whole number"),
        ("z:0", "greater than 0"), ("z:1001", "out of range"), ("z:1:2:3", "expected 1 to 2 arguments"), ("z:abc", "not a number"), ("z:1:-1", "out of range"),
        ("exar:1:sm", "smart gravity"), ("exar:1:no:1:2:3", "expected 1 to 4 arguments"), ("exar:1:up", "unknown gravity"),
        ("ar:1:1", "expected 1 argument"), ("fl:1:1:1", "expected 1 to 2 arguments"),
        ("g:fp:2:0", "out of range"), ("g:fp:0.5", "fp:<x>:<y>"),
        ("dpr:0", "greater than 0"), ("dpr:1001", "out of range"),
    ]

    @Test("bad input is 400 naming the segment", arguments: badInput)
    func badInputIs400(_ example: (String, String)) {
        let error = parseError("/_/\(example.0)/\(Self.source)")
        #expect(error?.status == 400, "\(example.0)")
        #expect(error?.message.contains(example.1) == true, "\(example.0): \(error?.message ?? "parsed")")
        if !example.0.contains("/") { #expect(error?.message.contains("option '\(example.0)'") == true, "\(example.0) names the segment") }
    }

    /// Values imgproxy v4 reads where a stricter reading would refuse them
    /// (options/parser/parse.go: `parseBool` treats any other spelling as false with a
    /// warning; `dpr` and `zoom` are any positive number).
    static let lenientInput: [(String, @Sendable (ProcessingOptions) -> Bool)] = [
        ("el:1/el:yes", { !$0.enlarge }), ("el:1/el:tRuE", { !$0.enlarge }), ("ar:0/ar:2", { !$0.autoRotate }),
        ("exar:1/exar:yes", { !$0.extendAspectRatio }), ("fl:1:1/fl:yes:on", { !$0.flipHorizontal && !$0.flipVertical }),
        ("dpr:9", { $0.dpr == 9 }), ("z:9", { $0.zoomWidth == 9 && $0.zoomHeight == 9 }), ("w:5000/z:2", { $0.width == 5000 }),
        ("mh:9000", { $0.minHeight == 9000 }), ("mw:5000/dpr:2", { $0.minWidth == 5000 && $0.dpr == 2 }),
    ]

    @Test("values imgproxy accepts are accepted: other boolean spellings read as false, dpr and zoom above 8, sizes above the result limit", arguments: lenientInput.indices)
    func lenientValues(_ index: Int) throws {
        let (path, holds) = Self.lenientInput[index]
        #expect(holds(try Self.options(path)), "\(path)")
    }

    @Test("a result larger than the largest result side is scaled down to it, as imgproxy's limitScale does")
    func resultScaledDown() throws {
        for path in ["w:5000/z:2/el:1", "mw:5000/dpr:2/el:1", "rs:fill:9000:3000/el:1", "w:100/dpr:100/el:1", "w:2000/pd:4000/el:1"] {
            var options = try Self.options(path)
            options.limits.maxResultDimension = 8192
            let size = ProcessingGeometry(options: options, sourceSize: PixelSize(width: 640, height: 480)).outputSize
            #expect(max(size.width, size.height) <= 8192 && max(size.width, size.height) >= 8000, "\(path): \(size)")
        }
    }

    @Test("booleans as Go's strconv.ParseBool spells them; an empty one is false")
    func booleanSpellings() throws {
        for spelling in ["1", "t", "T", "TRUE", "true", "True"] { #expect(try Self.options("el:\(spelling)").enlarge, "\(spelling)") }
        for spelling in ["0", "f", "F", "FALSE", "false", "False"] { #expect(try !Self.options("el:1/el:\(spelling)").enlarge, "\(spelling)") }
        #expect(try !Self.options("el:1/el:").enlarge)
    }

    @Test("empty and missing arguments keep the current values, as imgproxy's parser does")
    func emptyArgumentsKeep() throws {
        #expect(try Self.options("g:no::5").gravity == .anchor(.north, xOffset: 0, yOffset: 5))
        #expect(try Self.options("g:no:5").gravity == .anchor(.north, xOffset: 5, yOffset: 0))
        #expect(try Self.options("g:no:5:6/g:so").gravity == .anchor(.south, xOffset: 5, yOffset: 6))
        #expect(try Self.options("g:no:5:6/g:so::7").gravity == .anchor(.south, xOffset: 5, yOffset: 7))
        #expect(try Self.options("g:no:5:6/g:sm/g:no").gravity == .anchor(.north, xOffset: 0, yOffset: 0))
        #expect(try Self.options("g:fp:0.2:0.3/g:fp::0.9").gravity == .focusPoint(x: 0.2, y: 0.9))
        #expect(try Self.options("c:100").crop == CropOption(width: 100, height: 0))
        #expect(try Self.options("c:100:50:no:3/c:20").crop == CropOption(width: 20, height: 50, gravity: .anchor(.north, xOffset: 3, yOffset: 0)))
        #expect(try Self.options("pd:10/pd::20").padding == ImagePadding(top: 10, right: 20, bottom: 10, left: 20))
        #expect(try Self.options("pd:1:2:3:4/pd:5::6").padding == ImagePadding(top: 5, right: 5, bottom: 6, left: 5))
        let resized = try Self.options("rs:fill:100:200/rs::300")
        #expect(resized.width == 300 && resized.height == 200 && resized.resizingType == .fill)
        #expect(try Self.options("ex:1:so:4/ex:0").extendGravity == .anchor(.south, xOffset: 4, yOffset: 0))
        #expect(try Self.options("ex:1:so:4/ex:1:no").extendGravity == .anchor(.north, xOffset: 4, yOffset: 0))
        #expect(try Self.options("fl:1/fl::1").flipHorizontal && Self.options("fl:1/fl::1").flipVertical)
    }

    @Test("exp:0 and negative times never expire; a past time is 404")
    func expires() throws {
        #expect(try Self.options("exp:0").expires == nil)
        #expect(try Self.options("exp:-5").expires == nil)
        #expect(parseError("/_/exp:1/\(Self.source)")?.status == 404)
    }

    /// Options, planned output size for the 200 × 100 source: imgproxy's arithmetic.
    static let sizes: [(String, PixelSize)] = [
        ("mw:300", PixelSize(width: 300, height: 150)),
        ("mh:150", PixelSize(width: 300, height: 150)),
        ("w:50/mw:100", PixelSize(width: 50, height: 50)),
        ("z:0.5", PixelSize(width: 100, height: 50)),
        ("z:0.5:0.25", PixelSize(width: 100, height: 25)),
        ("z:2", PixelSize(width: 200, height: 100)),
        ("z:2/el:1", PixelSize(width: 400, height: 200)),
        ("rs:fit:50:50/z:2", PixelSize(width: 100, height: 50)),
        ("rs:fit:100:100/exar:1", PixelSize(width: 100, height: 100)),
        ("dpr:0.5", PixelSize(width: 100, height: 50)),
        ("dpr:2", PixelSize(width: 200, height: 100)),
        ("dpr:2/el:1", PixelSize(width: 400, height: 200)),
        ("c:100/dpr:0.5", PixelSize(width: 50, height: 50)),
        ("pd:10/dpr:2/el:1", PixelSize(width: 440, height: 240)),
        ("rot:90/fl:1", PixelSize(width: 100, height: 200)),
    ]

    @Test("planned sizes and the pipeline's output agree", arguments: sizes)
    func plannedSizes(_ example: (String, PixelSize)) throws {
        let options = try Self.options(example.0)
        let plan = options.plan(for: PositionalImage.size)
        #expect(plan.outputSize == example.1, "\(example.0)")
        #expect(try ProxyTransformer(options: options).transform(PositionalImage.image()).pixelSize == example.1, "\(example.0)")
    }

    @Test("flip mirrors after the rotation; min-width and zoom scale the source")
    func pixels() throws {
        let image = try PositionalImage.image()
        func source(_ options: String, _ x: Int, _ y: Int) throws -> (x: Double, y: Double) {
            let output = try ProxyTransformer(options: try Self.options(options)).transform(image)
            return PositionalImage.coordinate(of: try output.pixel(x: x, y: y))
        }
        let flipped = try source("fl:1", 5, 5)
        #expect(abs(flipped.x - 194) <= 2 && abs(flipped.y - 5) <= 2)
        let both = try source("fl:1:1", 5, 5)
        #expect(abs(both.x - 194) <= 2 && abs(both.y - 94) <= 2)
        // Rotated 90° clockwise, then mirrored left–right: the top-left shows the source's top-left.
        let turned = try source("rot:90/fl:1", 5, 5)
        #expect(abs(turned.x - 5) <= 2 && abs(turned.y - 5) <= 2)
        let zoomed = try source("z:0.5", 50, 25)
        #expect(abs(zoomed.x - 100) <= 3 && abs(zoomed.y - 50) <= 3)
        let wide = try source("mw:300", 150, 75)
        #expect(abs(wide.x - 100) <= 3 && abs(wide.y - 50) <= 3)
    }

    @Test("a mangled builder URL with every geometry option parses (%3A restored, https:/ restored)")
    func mangledURL() throws {
        let request = try ProxyURLParser(keys: []).parse(path: ProxyURLFuzzTests.validPaths.last!)
        let options = request.options
        #expect(request.source.absoluteString == "https://example.com/a.jpg" && options.format == .png)
        #expect(options.width == 100 && options.minWidth == 50 && options.minHeight == 20)
        #expect(options.zoomWidth == 1.5 && options.zoomHeight == 0.5 && !options.autoRotate && options.flipVertical && !options.flipHorizontal)
        #expect(options.extendAspectRatio && options.extendAspectRatioGravity == .anchor(.north, xOffset: 0, yOffset: 5))
        #expect(options.crop == CropOption(width: 80, height: 0))
    }

    @Test("shrink-on-load: no decode box that the option could make too small or mis-oriented")
    func shrinkOnLoad() throws {
        #expect(try Self.options("rs:fit:100:100").thumbnailPixelSize != nil)
        for text in ["rs:fit:100:100/z:2", "rs:fit:100:100/mw:300", "rs:fit:100:100/mh:300", "rs:fit:100:100/ar:0"] {
            #expect(try Self.options(text).thumbnailPixelSize == nil, "\(text)")
        }
        let large = PixelSize(width: 4000, height: 2000)
        #expect(try Self.options("rs:fill:100:100").decodeHint(sourceSize: large) != nil)
        #expect(try Self.options("rs:fill:100:100/ar:0").decodeHint(sourceSize: large) == nil)
    }

    @Test("end to end through the proxy: min-width, min-height and zoom scale the whole source")
    func liveProxy() async throws {
        let whole = Area(PositionalImage.size)
        try await ImgproxyCaseRunner.run([
            ImgproxyCase(test: "min-width", name: "mw:300", options: "mw:300", size: PixelSize(width: 300, height: 150), visible: whole),
            ImgproxyCase(test: "min-height", name: "mh:150", options: "min-height:150", size: PixelSize(width: 300, height: 150), visible: whole),
            ImgproxyCase(test: "zoom", name: "z:0.5:0.25", options: "z:0.5:0.25", size: PixelSize(width: 100, height: 25), visible: whole),
            ImgproxyCase(test: "zoom", name: "z:2/el:1", options: "zoom:2/el:1", size: PixelSize(width: 400, height: 200), visible: whole),
            ImgproxyCase(test: "zoom", name: "z:0", options: "z:0", status: 400),
        ])
    }
}
