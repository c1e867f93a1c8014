import Foundation
import Testing
import WebImage
@testable import WebImageServer

/// SplitMix64: a tiny seeded generator, so every run fuzzes the same URLs.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Builds random and mutated proxy paths.
struct ProxyPathFuzzer {
    var random: SeededGenerator

    static let optionNames = ["resize", "rs", "size", "s", "resizing_type", "rt", "width", "w", "height", "h", "dpr", "enlarge", "el", "extend", "ex", "gravity", "g", "crop", "c", "padding", "pd", "quality", "q", "max_bytes", "mb", "format", "f", "ext", "blur", "bl", "sharpen", "sh", "rotate", "rot", "background", "bg", "strip_metadata", "sm", "cachebuster", "cb", "expires", "exp", "raw", "preset", "pr", "background_alpha", "bga", "strip_color_profile", "scp", "keep_copyright", "kcr", "enforce_thumbnail", "eth", "format_quality", "fq", "skip_processing", "skp", "filename", "fn", "return_attachment", "att", "trim", "t", "pixelate", "pix", "watermark", "wm", "max_src_resolution", "msr", "max_src_file_size", "msfs", "max_animation_frames", "maf", "max_animation_frame_resolution", "mafr", "max_result_dimension", "mrd", "min-width", "mw", "min-height", "mh", "zoom", "z", "extend_aspect_ratio", "extend_ar", "exar", "auto_rotate", "ar", "flip", "fl", "bogus", "W", ""]
    static let words = ["fit", "fill", "fill-down", "force", "auto", "ce", "no", "so", "ea", "we", "noea", "nowe", "soea", "sowe", "sm", "fp", "1", "0", "t", "f", "true", "false", "T", "TRUE", "True", "F", "FALSE", "False", "tRuE", "jpg", "png", "webp", "avif", "gif", "bmp", "thumb", "default", "ff8000", "fff", "nan", "inf", "re", "heic", "svg", "best", "0.985", "0.9999", "aGVsbG8", "-1", "1e3", "0.5", ".5", "8192", "8193", "99999999999999999999", "", "%00", "%zz", "é", "🙂"]
    static let sources = ["plain/http://example.com/a.jpg", "plain/https://example.com/a%20b.png@webp", "plain/http://h/x.jpg@png", "aHR0cDovL2V4YW1wbGUuY29tL2EuanBn", "aHR0cDovL2V4YW1w/bGUuY29tL2EuanBn.png", "enc/abc", "plain/", "plain/%", "aHR0cDovL2E", "!!", "plain/http://[::1]/a.jpg", "plain/javascript:alert(1)"]
    /// Bytes the mutations insert: separators, escapes, control bytes, and pieces of
    /// multi-byte UTF-8 (alone they make invalid UTF-8, which String repairs).
    static let noise: [UInt8] = Array("/:.@%=-_aZ09 ?#\\+".utf8) + [0x00, 0x1F, 0x7F, 0xC3, 0xA9, 0xF0, 0x9F, 0x99, 0x82]
    /// A number in `0..<bound` (the modulo bias does not matter here, and it is much
    /// cheaper in a debug build than the generic `Int.random(in:using:)`).
    mutating func below(_ bound: Int) -> Int { Int(random.next() % UInt64(bound)) }
    /// A number in `range`.
    mutating func within(_ range: ClosedRange<Int>) -> Int { range.lowerBound + below(range.count) }
    mutating func pick<T>(_ values: [T]) -> T { values[below(values.count)] }
    mutating func chance(_ percent: Int) -> Bool { below(100) < percent }

    mutating func number() -> String {
        switch below(6) {
        case 0: String(within(0...10_000))
        case 1: String(within(-10_000...0))
        case 2: String(Double(within(-2_000...10_000)) / 1000)
        case 3: String(within(0...100))
        case 4: String(random.next())
        default: pick(Self.words)
        }
    }

    mutating func option() -> String {
        let arguments = (0..<within(0...6)).map { _ in chance(50) ? number() : pick(Self.words) }
        return ([pick(Self.optionNames)] + arguments).joined(separator: ":")
    }

    /// A random path: signature, options, source.
    mutating func randomPath() -> String {
        let options = (0..<within(0...6)).map { _ in option() }
        let signature = pick(["insecure", "_", "", "oKfUtW34Dvo2BGQehJFR4Nr0_rIjOtdtzJ3QFsUcXH8", "x:y"])
        return "/" + ([signature] + options + [pick(Self.sources)]).joined(separator: "/")
    }

    /// `path` with one to four random edits, made on its UTF-8 bytes.
    mutating func mutate(_ path: String) -> String {
        var bytes = Array(path.utf8)
        for _ in 0..<within(1...4) {
            let position = bytes.isEmpty ? 0 : below(bytes.count)
            switch below(6) {
            case 0: bytes.insert(pick(Self.noise), at: position)
            case 1: if !bytes.isEmpty { bytes.remove(at: position) }
            case 2: if !bytes.isEmpty { bytes[position] = pick(Self.noise) }
            case 3: bytes.removeSubrange(position...)
            case 4: bytes.insert(contentsOf: Array(("/" + option()).utf8), at: position)
            default: bytes.insert(contentsOf: bytes[position...].prefix(12), at: position)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

// Fuzz: the parser never crashes, every failure is a ProxyError with a known
// status, and every success is within bounds and has a variant key that parses back.
@Suite("Proxy URL fuzz")
struct ProxyURLFuzzTests {
    static let validPaths = [
        "/insecure/rs:fill:300:200:1:1:so/g:fp:0.3:0.7/q:80/plain/http://example.com/a.jpg@webp",
        "/_/s:100:0/dpr:2/c:0.5:0.5:nowe/bl:1.5/sh:0.5/rot:90/bg:ff8000/sm:1/cb:v1/aHR0cDovL2V4YW1w/bGUuY29tL2EuanBn.png",
        "/_/pr:thumb/w:50/ex:1:soea:5:5/f:avif/raw:0/exp:4102444800/plain/https://example.com/a%20b.png",
        "/oKfUtW34Dvo2BGQehJFR4Nr0_rIjOtdtzJ3QFsUcXH8/rs:fill:300:400:0/g:sm/aHR0cDovL2V4YW1w/bGUuY29tL2ltYWdl/cy9jdXJpb3NpdHku/anBn.png",
        "/_/rs%3Afit%3A100%3A100/mw:50/mh:20/z:1.5:0.5/exar:1:no::5/ar:0/fl::1/g:no::5/c:80/plain/https:/example.com/a.jpg@png",
    ]

    /// The rounds of ``fuzz()``: 20,000, or `WEBIMAGE_S1_FUZZ_ROUNDS`.
    static let rounds = ProcessInfo.processInfo.environment["WEBIMAGE_S1_FUZZ_ROUNDS"].flatMap { Int($0) } ?? 20_000

    @Test("S1 fuzz: 20,000 (or WEBIMAGE_S1_FUZZ_ROUNDS) random and mutated URLs never crash and fail only with 400/403/404/410")
    func fuzz() async throws {
        let presets = ["thumb": "rs:fill:150:150/q:70", "default": "sm:1"]
        let unsigned = ProxyURLParser(keys: [], presets: presets, maxDimension: 4096)
        let signed = ProxyURLParser(keys: [try SigningKey(hexKey: "736563726574", hexSalt: "68656C6C6F")], presets: presets)
        let plain = ProxyURLParser(keys: [])
        var fuzzer = ProxyPathFuzzer(random: SeededGenerator(seed: 0x5EED_1234))
        var successes = 0
        var statuses: [Int: Int] = [:]
        let now = Date(timeIntervalSince1970: 1_800_000_000)

        for round in 0..<Self.rounds {
            // Seconds of CPU: yield now and then so the other tests' tasks (the cooperative
            // pool has one thread per core) are not starved while this runs.
            if round % 1_000 == 0 { await Task.yield() }
            let path: String
            switch round % 4 {
            case 0: path = fuzzer.randomPath()
            case 1: path = fuzzer.mutate(fuzzer.randomPath())
            default: path = fuzzer.mutate(fuzzer.pick(Self.validPaths))
            }
            let parser = round % 10 == 0 ? signed : unsigned
            // Plain checks with an issue only on failure: thousands of rounds of #expect would
            // cost more than the parsing under test.
            let request: ProxyRequest
            do {
                request = try parser.parse(path: path, now: now)
            } catch {
                statuses[Int(error.status.code), default: 0] += 1
                if ![400, 403, 404, 410].contains(Int(error.status.code)) || error.message.isEmpty {
                    Issue.record("\(path): unexpected error \(error)")
                }
                continue
            }
            successes += 1
            if let problem = Self.outOfBounds(request, maxDimension: parser.maxDimension) {
                Issue.record("\(path): \(problem)")
            }
            // The variant key is itself a valid option string with the same meaning.
            let key = request.options.variantKey
            let reparsed = try plain.parse(path: "/_/\(key.isEmpty ? "" : key + "/")plain/http://h/x")
            if reparsed.options.variantKey != key {
                Issue.record("\(path): variant key \(key) parses back as \(reparsed.options.variantKey)")
            }
        }
        // The fuzzer reaches both outcomes and both kinds of failure.
        #expect(successes > Self.rounds / 100)
        #expect(statuses[400, default: 0] > Self.rounds / 10)
        #expect(statuses[403, default: 0] > Self.rounds / 100)
    }

    /// What is wrong with a parsed request's values, if anything.
    static func outOfBounds(_ request: ProxyRequest, maxDimension: Int) -> String? {
        let options = request.options
        let side = OptionApplier.maxSide
        if !(0...side).contains(options.width) || !(0...side).contains(options.height) { return "size out of bounds" }
        if !(options.dpr > 0 && options.dpr <= OptionApplier.maxFactor) { return "dpr out of bounds" }
        let zooms = [options.zoomWidth, options.zoomHeight]
        if !zooms.allSatisfy({ $0 > 0 && $0 <= OptionApplier.maxFactor }) { return "zoom out of bounds" }
        if !(0...side).contains(options.minWidth) || !(0...side).contains(options.minHeight) { return "min size out of bounds" }
        // However large the URL's sizes, the result fits the largest result side.
        var limited = options
        limited.limits.maxResultDimension = maxDimension
        let geometry = ProcessingGeometry(options: limited, sourceSize: PixelSize(width: 640, height: 480))
        if max(geometry.outputSize.width, geometry.outputSize.height) > maxDimension + 2 { return "result \(geometry.outputSize) over \(maxDimension)" }
        if let quality = options.quality, !(1...100).contains(quality) { return "quality out of bounds" }
        if let target = options.autoQualityTarget, !(0.5...0.9999).contains(target) || !options.autoQuality { return "auto quality target out of bounds" }
        if options.bestFormat, options.format != nil { return "best format beside a fixed format" }
        if ![0, 90, 180, 270].contains(options.rotate) { return "rotation \(options.rotate)" }
        if let format = options.format, !format.isWritable, format != .svg { return "format \(format) neither writable nor svg" }
        if let alpha = options.backgroundAlpha, !(0..<1).contains(alpha) { return "background alpha \(alpha)" }
        if options.formatQuality.values.contains(where: { !(1...100).contains($0) }) { return "format quality out of bounds" }
        if let pixelate = options.pixelate, !(2...side).contains(pixelate) { return "pixelate \(pixelate)" }
        if let trim = options.trim, !(0...1000).contains(trim.threshold) { return "trim threshold \(trim.threshold)" }
        if let mark = options.watermark, !(mark.opacity > 0 && mark.opacity <= 1 && (0...OptionApplier.maxWatermarkScale).contains(mark.scale)) { return "watermark \(mark)" }
        if !options.limits.isEmpty { return "security options without the server allowing them" }
        if request.source.scheme?.isEmpty ?? true { return "source without a scheme" }
        return nil
    }
}
