import Foundation
import Testing
import WebImage
import WebImageServer

// imgproxy URL forms parse, aliases work, malformed URLs are 400 with a message.
@Suite("Proxy URL dialect")
struct ProxyURLParserTests {
    let parser = ProxyURLParser(keys: [])
    let source = "https://example.com/images/curiosity.jpg"

    @Test("S1 base64 source without extension, whole and split into chunks")
    func base64Source() throws {
        let encoded = base64URL(source)
        let whole = try parser.parse(path: "/insecure/rs:fit:300:200/\(encoded)")
        #expect(whole.source.absoluteString == source)
        #expect(whole.extensionFormat == nil)
        #expect(whole.options.format == nil)
        #expect(whole.options.width == 300 && whole.options.height == 200)

        let chunks = stride(from: 0, to: encoded.count, by: 7).map { start in
            let from = encoded.index(encoded.startIndex, offsetBy: start)
            let to = encoded.index(from, offsetBy: min(7, encoded.count - start))
            return String(encoded[from..<to])
        }
        let split = try parser.parse(path: "/_/rs:fit:300:200/" + chunks.joined(separator: "/"))
        #expect(split == whole)
    }

    @Test("S1 base64 source with extension, padded base64 accepted")
    func base64SourceWithExtension() throws {
        let request = try parser.parse(path: "/_/w:100/\(base64URL(source)).png")
        #expect(request.source.absoluteString == source)
        #expect(request.extensionFormat == .png)
        #expect(request.options.format == .png)

        let padded = Data(source.utf8).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        #expect(padded.hasSuffix("="))
        #expect(try parser.parse(path: "/_/w:100/\(padded).png") == request)
    }

    @Test("S1 plain source without and with @extension; percent-escapes decoded")
    func plainSource() throws {
        let plain = try parser.parse(path: "/_/h:50/plain/https://example.com/images/curiosity.jpg")
        #expect(plain.source.absoluteString == source)
        #expect(plain.extensionFormat == nil)

        let withExtension = try parser.parse(path: "/_/h:50/plain/https://example.com/images/curiosity.jpg@webp")
        #expect(withExtension.source.absoluteString == source)
        #expect(withExtension.extensionFormat == .webp)
        #expect(withExtension.options.format == .webp)

        let escaped = try parser.parse(path: "/_/plain/https%3A%2F%2Fexample.com%2Fa%20b.jpg%3Fv%3D1%40x@jpeg")
        #expect(escaped.source.absoluteString == "https://example.com/a%20b.jpg?v=1@x")
        #expect(escaped.extensionFormat == .jpeg)
    }

    @Test("S1 every writable extension is accepted; others are 400")
    func extensions() throws {
        let expected: [String: ImageFormat] = [
            "jpg": .jpeg, "jpeg": .jpeg, "png": .png, "webp": .webp, "avif": .avif, "gif": .gif, "tiff": .tiff, "heic": .heic,
            "bmp": .bmp, "ico": .ico, "svg": .svg,
        ]
        for (name, format) in expected {
            #expect(try parser.parse(path: "/_/\(base64URL(source)).\(name)").extensionFormat == format)
            #expect(try parser.parse(path: "/_/plain/\(source)@\(name)").extensionFormat == format)
        }
        for bad in ["pdf", "qoi", "exe", "best"] {
            let error = parseError("/_/\(base64URL(source)).\(bad)")
            #expect(error?.status == 400)
            #expect(error?.message.contains("'\(bad)'") == true)
        }
    }

    @Test("S1 no options at all: defaults, empty variant key")
    func noOptions() throws {
        let request = try parser.parse(path: "/insecure/plain/\(source)")
        #expect(request.options == ProcessingOptions())
        #expect(request.options.variantKey == "")
    }

    /// Pairs of option strings that must mean the same thing.
    static let equivalentOptions: [(String, String)] = [
        ("resize:fill:300:200:1:1", "rs:fill:300:200:t:true"),
        ("rs:fill:300:200:1:1", "rt:fill/w:300/h:200/el:1/ex:1"),
        ("size:300:200:0:1", "s:300:200:f:t"),
        ("s:300:200", "width:300/height:200"),
        ("resizing_type:fill-down", "rt:fill-down"),
        ("w:10", "width:10"),
        ("h:10", "height:10"),
        ("dpr:2", "dpr:2.0"),
        ("enlarge:1", "el:true"),
        ("extend:1:so", "ex:1:so:0:0"),
        ("gravity:noea:10:5", "g:noea:10:5"),
        ("gravity:fp:0.25:0.75", "g:fp:.25:0.750"),
        ("gravity:sm", "g:sm"),
        ("crop:100:50:we", "c:100:50:we:0:0"),
        ("quality:80", "q:80"),
        ("max_bytes:10000", "mb:10000"),
        ("format:webp", "f:webp"),
        ("format:jpg", "ext:jpeg"),
        ("blur:2.5", "bl:2.50"),
        ("sharpen:1", "sh:1.0"),
        ("rotate:90", "rot:-270"),
        ("rotate:360", "rot:0"),
        ("background:255:128:0", "bg:ff8000"),
        ("bg:fff", "bg:255:255:255"),
        ("bg:ff0000/bg:", "q:0"),
        ("strip_metadata:1", "sm:t"),
        ("cachebuster:v2", "cb:v2"),
        ("raw:1", "raw:true"),
        ("expires:4102444800", "exp:4102444800"),
        ("w:300/h:200/q:80", "q:80/h:200/w:300"),
        ("w:100/w:300", "w:300"),
        ("blur:0", "bl:0.0"),
        ("padding:10", "pd:10:10:10:10"),
        ("padding:10:20", "pd:10:20:10:20"),
        ("pd:1:2:3", "pd:1:2:3:2"),
        ("pd:0", "pd:0:0:0:0"),
        ("pd:5/pd:0", "w:0"),
    ]

    @Test("S1 every option alias parses to the same options and variant key", arguments: equivalentOptions)
    func aliases(_ pair: (String, String)) throws {
        let left = try parser.parse(path: "/_/\(pair.0)/plain/\(source)")
        let right = try parser.parse(path: "/_/\(pair.1)/plain/\(source)")
        #expect(left.options == right.options)
        #expect(left.options.variantKey == right.options.variantKey)
    }

    @Test("S1 parsed values land in the right fields")
    func values() throws {
        let options = try parser.parse(path: "/_/rs:auto:400:300:1:1:nowe/dpr:1.5/g:soea:0.1:12/c:0.5:200:fp:0.2:0.8/q:75/f:avif/bl:3/sh:0.5/rot:270/bg:10:20:30/sm:0/cb:abc/raw:0/plain/\(source)").options
        #expect(options.resizingType == .auto)
        #expect(options.width == 400 && options.height == 300)
        #expect(options.enlarge && options.extend)
        #expect(options.extendGravity == .anchor(.northWest, xOffset: 0, yOffset: 0))
        #expect(options.dpr == 1.5)
        #expect(options.gravity == .anchor(.southEast, xOffset: 0.1, yOffset: 12))
        #expect(options.crop == CropOption(width: 0.5, height: 200, gravity: .focusPoint(x: 0.2, y: 0.8)))
        #expect(options.quality == 75)
        #expect(options.format == .avif)
        #expect(options.blur == 3 && options.sharpen == 0.5)
        #expect(options.rotate == 270)
        #expect(options.background == ImageColor(red: 10, green: 20, blue: 30))
        #expect(options.stripMetadata == false)
        #expect(options.cacheBuster == "abc")
        #expect(!options.raw)
        #expect(options.variantKey == "rt:auto/w:400/h:300/dpr:1.5/el:1/ex:1:nowe:0:0/g:soea:0.1:12/c:0.5:200:fp:0.2:0.8/q:75/f:avif/bl:3/sh:0.5/rot:270/bg:0a141e/sm:0/cb:abc")
    }

    @Test("S1 variant key: cachebuster changes it, expires does not; the URL extension overrides format")
    func variantKeyInputs() throws {
        let base = try parser.parse(path: "/_/w:100/plain/\(source)").options.variantKey
        #expect(try parser.parse(path: "/_/w:100/cb:1/plain/\(source)").options.variantKey != base)
        #expect(try parser.parse(path: "/_/w:100/exp:4102444800/plain/\(source)").options.variantKey == base)
        let request = try parser.parse(path: "/_/f:png/w:100/plain/\(source)@webp")
        #expect(request.options.format == .webp)
    }

    @Test("S1 presets expand in place, nest, and the default preset applies first; a recursive use is skipped")
    func presets() throws {
        let parser = ProxyURLParser(keys: [], presets: [
            "default": "q:70/sm:1",
            "thumb": "rs:fill:150:150/pr:sharp",
            "sharp": "sh:0.7",
            "loop": "q:40/pr:loop",
        ])
        try parser.validatePresets()
        let options = try parser.parse(path: "/_/preset:thumb/w:200/plain/\(source)").options
        #expect(options.quality == 70 && options.stripMetadata == true)
        #expect(options.resizingType == .fill && options.width == 200 && options.height == 150)
        #expect(options.sharpen == 0.7)
        #expect(try parser.parse(path: "/_/q:90/pr:thumb/plain/\(source)").options.quality == 90)
        #expect(try parser.parse(path: "/_/pr:thumb/plain/\(source)") == parser.parse(path: "/_/preset:thumb/plain/\(source)"))

        let unknown = parseError("/_/pr:missing/plain/\(source)", parser: parser)
        #expect(unknown?.status == 400)
        #expect(unknown?.message.contains("unknown preset 'missing'") == true)
        // As imgproxy's TestParsePathPresetLoopDetection: the preset applies once.
        #expect(try parser.parse(path: "/_/pr:loop/plain/\(source)").options.quality == 40)
    }

    @Test("S1 a bad preset definition is reported by validatePresets and names the preset")
    func badPreset() throws {
        try ProxyURLParser(keys: [], presets: ["ok": "rs:fit:10:10/q:50"]).validatePresets()
        let parser = ProxyURLParser(keys: [], presets: ["broken": "w:abc"])
        #expect(throws: ProxyError.self) { try parser.validatePresets() }
        let error = parseError("/_/pr:broken/plain/\(source)", parser: parser)
        #expect(error?.status == 400)
        #expect(error?.message.contains("in preset 'broken'") == true)
    }

    @Test("S1 expires: future accepted, past is 404 'URL expired'")
    func expires() throws {
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        #expect(try parser.parse(path: "/_/exp:1700000100/plain/\(source)", now: now).options.expires == 1_700_000_100)
        do {
            _ = try parser.parse(path: "/_/exp:1699999999/plain/\(source)", now: now)
            Issue.record("an expired URL parsed")
        } catch {
            #expect(error.status == 404)
            #expect(error.message.contains("URL expired"))
        }
    }

    /// Malformed paths and a piece of the message each must contain.
    static let malformed: [(String, String)] = [
        ("", "must start with '/'"),
        ("insecure/plain/http://a/b.jpg", "must start with '/'"),
        ("/insecure", "missing source"),
        ("/insecure/", "missing source"),
        ("/insecure/w:100", "missing source"),
        ("/insecure/w:100/plain/", "missing source"),
        ("/insecure/w:100/plain", "missing source"),
        ("/_/w:100/!!notbase64!!", "not valid URL-safe base64"),
        ("/_/w:100/aHR0cDovL2F", "not valid URL-safe base64"),
        ("/_/w:100/_w", "not UTF-8"),
        ("/_/w:100/\(base64URL("no scheme here"))", "not an absolute URL"),
        ("/_/w:100/\(base64URL("http:///nohost"))", "has no host"),
        ("/_/w:100/\(base64URL("http://a/b\u{1}c"))", "control characters"),
        ("/_/plain/http://a/%01.jpg", "control characters"),
        ("/_/plain/http://a/%zz.jpg", "malformed percent escape"),
        ("/_/plain/http://a/b.jpg\u{7}", "control character"),
        ("/_/enc/abcdef", "encrypted"),
        ("/_/\(base64URL("http://a/b.jpg")).", "empty extension"),
        ("/_/plain/http://a/b.jpg@", "empty extension"),
        ("/_/plain/http://a/b.jpg@pdf", "'pdf'"),
        ("/_/frobnicate:1/plain/http://a/b.jpg", "unknown option 'frobnicate'"),
        ("/_/W:1/plain/http://a/b.jpg", "unknown option 'W'"),
        ("/_/w/plain/http://a/b.jpg", "not valid URL-safe base64"),
        ("/_/w:/plain/http://a/b.jpg", "'w:'"),
        ("/_/w:1:2/plain/http://a/b.jpg", "expected 1 argument, got 2"),
        ("/_/w:abc/plain/http://a/b.jpg", "'abc' is not a whole number"),
        ("/_/w:+5/plain/http://a/b.jpg", "not a whole number"),
        ("/_/w:-5/plain/http://a/b.jpg", "out of range"),
        ("/_/w:10000001/plain/http://a/b.jpg", "width 10000001 is out of range 0…10000000"),
        ("/_/h:99999999999999999999/plain/http://a/b.jpg", "not a whole number"),
        ("/_/rs:zoom:1:1/plain/http://a/b.jpg", "unknown resizing type 'zoom'"),
        ("/_/rs:fit:1:1:0:1:ce:1:2:3/plain/http://a/b.jpg", "expected 1 to 8 arguments"),
        ("/_/rt:/plain/http://a/b.jpg", "unknown resizing type"),
        ("/_/dpr:0/plain/http://a/b.jpg", "greater than 0"),
        ("/_/dpr:1000.5/plain/http://a/b.jpg", "out of range"),
        ("/_/dpr:nan/plain/http://a/b.jpg", "not a number"),
        ("/_/dpr:1e1/plain/http://a/b.jpg", "not a number"),
        ("/_/dpr:1.2.3/plain/http://a/b.jpg", "not a number"),
        ("/_/ex:1:sm/plain/http://a/b.jpg", "smart gravity cannot"),
        ("/_/g:up/plain/http://a/b.jpg", "unknown gravity 'up'"),
        ("/_/g:no:1:2:3/plain/http://a/b.jpg", "expected 1 to 3 arguments"),
        ("/_/ex:1:no:1:2:3/plain/http://a/b.jpg", "expected 1 to 4 arguments"),
        ("/_/rs:fit:1:1:0:1:no:1:2:3/plain/http://a/b.jpg", "expected 1 to 8 arguments"),
        ("/_/g:sm:1:1/plain/http://a/b.jpg", "takes no offsets"),
        ("/_/g:fp:0.5/plain/http://a/b.jpg", "fp:<x>:<y>"),
        ("/_/g:fp:1.5:0.5/plain/http://a/b.jpg", "out of range 0…1"),
        ("/_/g:ce:99999999:0/plain/http://a/b.jpg", "out of range"),
        ("/_/c:1:2:no:3:4:5/plain/http://a/b.jpg", "expected 1 to 5 arguments"),
        ("/_/c:-1:5/plain/http://a/b.jpg", "out of range"),
        ("/_/q:101/plain/http://a/b.jpg", "quality 101 is out of range 0…100"),
        ("/_/q:-1/plain/http://a/b.jpg", "out of range"),
        ("/_/mb:-1/plain/http://a/b.jpg", "out of range"),
        ("/_/f:pdf/plain/http://a/b.jpg", "unsupported output format 'pdf'"),
        ("/_/f:/plain/http://a/b.jpg", "unsupported output format"),
        ("/_/bl:100001/plain/http://a/b.jpg", "out of range"),
        ("/_/sh:-1/plain/http://a/b.jpg", "out of range"),
        ("/_/rot:45/plain/http://a/b.jpg", "not a multiple of 90"),
        ("/_/bg:12345/plain/http://a/b.jpg", "not a hex colour"),
        ("/_/bg:1:2/plain/http://a/b.jpg", "1 hex colour or 3 channel values"),
        ("/_/bg:1:2:256/plain/http://a/b.jpg", "out of range 0…255"),
        ("/_/cb:a:b/plain/http://a/b.jpg", "expected 1 argument"),
        ("/_/exp:soon/plain/http://a/b.jpg", "not a whole number"),
        ("/_/pr:/plain/http://a/b.jpg", "unknown preset ''"),
        ("/_/pd:1:2:3:4:5/plain/http://a/b.jpg", "expected 1 to 4 arguments"),
        ("/_/pd:-1/plain/http://a/b.jpg", "top padding -1 is out of range"),
    ]

    @Test("S1 malformed URLs are 400 with a message naming the problem", arguments: malformed)
    func malformedURL(_ example: (String, String)) {
        let error = parseError(example.0)
        #expect(error?.status == 400, "\(example.0)")
        #expect(error?.message.contains(example.1) == true, "\(example.0): \(error?.message ?? "parsed")")
    }

    @Test("S1 over-long paths are refused before parsing")
    func overlongPath() {
        let path = "/_/plain/http://a/" + String(repeating: "x", count: ProxyURLParser.maxPathLength)
        let error = parseError(path)
        #expect(error?.status == 400)
        #expect(error?.message.contains("limit") == true)
    }

    @Test("S1 a boolean imgproxy reads as false is read as false and named in the request's warnings; a clean URL has none")
    func lenientBooleanWarns() throws {
        let parser = ProxyURLParser(keys: [])
        let request = try parser.parse(path: "/_/el:yes/sm:on/plain/\(source)")
        #expect(!request.options.enlarge)
        #expect(request.warnings.count == 2)
        #expect(request.warnings.first?.contains("option 'el:yes': enlarge 'yes' is not a boolean") == true, "\(request.warnings)")
        #expect(try parser.parse(path: "/_/el:1/plain/\(source)").warnings.isEmpty)
    }

    @Test("S1 sizes above the largest result side are read, as imgproxy reads them; only libvips' bound on a side is refused")
    func maxDimension() throws {
        let small = ProxyURLParser(keys: [], maxDimension: 100)
        #expect(try small.parse(path: "/_/w:101/plain/\(source)").options.width == 101)
        #expect(try small.parse(path: "/_/w:5000/dpr:2/plain/\(source)").options.dpr == 2)
        #expect(parseError("/_/w:\(ServerProfile.unboundedResultDimension + 1)/plain/\(source)", parser: small)?.message.contains("out of range") == true)
    }
}
