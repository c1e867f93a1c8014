import Crypto
import Foundation

/// An ICC colour profile: the bytes an image embeds to say what its pixel values mean,
/// with the facts of its header and tags that decide how the image is shown.
///
/// A browser converts an image with its profile before showing it, and takes an image
/// without one to be sRGB. WebImage does the same: a decode converts to sRGB with the
/// profile unless asked to keep it (``ImageDecodeOptions/keepsColorProfile``), and an
/// encode writes what ``ImageEncodeOptions/colorProfile`` says. A profile whose primaries
/// and tone curves are sRGB's (``isSRGB``) needs no conversion, whatever its name.
public struct ICCProfile: Sendable, Hashable {
    /// The colour space of the device values a profile describes (the header's data colour space).
    public enum ColorSpace: String, Sendable, Hashable {
        /// Red, green and blue.
        case rgb
        /// One grey channel.
        case grey
        /// Cyan, magenta, yellow and black.
        case cmyk
        /// CIE L\*a\*b\*.
        case lab
        /// Any other space (YCbCr, XYZ, multi-channel…).
        case other
    }

    /// The profile as stored.
    public let data: Data
    /// The colour space of the values it describes.
    public let colorSpace: ColorSpace
    /// Its description (the `desc` tag), e.g. `Display P3`; `nil` when it has none.
    public let description: String?
    /// Whether converting with it to sRGB changes nothing that shows: an RGB profile with
    /// sRGB's primaries and tone curve (each within about a code value of 8-bit sRGB), and
    /// no lookup tables that a colour engine would use instead; or a grey profile with
    /// sRGB's tone curve.
    public let isSRGB: Bool

    /// Parses `data`; `nil` when it is not an ICC profile (shorter than its header, or
    /// without the `acsp` signature).
    public init?(data: Data) {
        guard let reader = ICCReader(data), reader.isProfile else { return nil }
        self.data = data
        colorSpace = reader.colorSpace
        description = reader.profileDescription
        isSRGB = reader.matchesSRGB
    }

    /// The first 16 hex digits of the SHA-256 of ``data``: a short, stable name of the
    /// profile for cache keys.
    public var digest: String {
        SHA256.hash(data: data).prefix(8).map { String(format: "%02x", $0) }.joined()
    }

    /// libvips' built-in sRGB profile (IEC 61966-2-1).
    public static var sRGB: ICCProfile { builtIn("srgb") }
    /// libvips' built-in Display P3 profile: the wide gamut recent phone cameras write.
    public static var displayP3: ICCProfile { builtIn("p3") }
    /// libvips' built-in CMYK profile, the one a CMYK image without a profile is read with.
    public static var cmyk: ICCProfile { builtIn("cmyk") }

    private static func builtIn(_ name: String) -> ICCProfile {
        guard let profile = VipsColor.builtInProfile(name) else {
            preconditionFailure("libvips has no built-in \(name) profile")
        }
        return profile
    }

    /// Two profiles are equal when their bytes are.
    public static func == (lhs: ICCProfile, rhs: ICCProfile) -> Bool { lhs.data == rhs.data }

    /// Hashes the bytes.
    public func hash(into hasher: inout Hasher) { hasher.combine(data) }
}

/// Reads the parts of an ICC profile that ``ICCProfile`` reports, without trusting any
/// offset or length in it.
private struct ICCReader {
    let bytes: [UInt8]
    let tags: [String: Range<Int>]

    init?(_ data: Data) {
        guard data.count >= 132 else { return nil }
        bytes = [UInt8](data)
        var tags: [String: Range<Int>] = [:]
        let count = Int(Self.uint32(bytes, at: 128) ?? 0)
        // A tag entry takes 12 bytes after the count; a count beyond the data is cut short.
        for index in 0..<min(count, (bytes.count - 132) / 12) {
            let entry = 132 + index * 12
            guard let offset = Self.uint32(bytes, at: entry + 4), let size = Self.uint32(bytes, at: entry + 8) else { break }
            let start = Int(offset), end = start.addingReportingOverflow(Int(size))
            guard !end.overflow, start >= 0, end.partialValue <= bytes.count, start < end.partialValue else { continue }
            tags[Self.signature(bytes, at: entry)] = start..<end.partialValue
        }
        self.tags = tags
    }

    var isProfile: Bool { Self.signature(bytes, at: 36) == "acsp" }

    var colorSpace: ICCProfile.ColorSpace {
        switch Self.signature(bytes, at: 16) {
        case "RGB ": .rgb
        case "GRAY": .grey
        case "CMYK": .cmyk
        case "Lab ": .lab
        default: .other
        }
    }

    // MARK: Description

    /// The `desc` tag: a version 2 `desc` text (ASCII), or a version 4 `mluc` whose first
    /// record (UTF-16 big-endian) is taken.
    var profileDescription: String? {
        guard let range = tags["desc"], range.count >= 12 else { return nil }
        let start = range.lowerBound
        switch Self.signature(bytes, at: start) {
        case "desc":
            guard let length = Self.uint32(bytes, at: start + 8) else { return nil }
            let textStart = start + 12
            let textEnd = min(range.upperBound, textStart + Int(length))
            guard textStart < textEnd else { return nil }
            let text = bytes[textStart..<textEnd].prefix { $0 != 0 }
            return Self.cleaned(String(decoding: text, as: UTF8.self))
        case "mluc":
            guard let records = Self.uint32(bytes, at: start + 8), records > 0,
                  let length = Self.uint32(bytes, at: start + 20), let offset = Self.uint32(bytes, at: start + 24)
            else { return nil }
            let textStart = start + Int(offset)
            let textEnd = min(range.upperBound, textStart + Int(length))
            guard textStart < textEnd else { return nil }
            let units = stride(from: textStart, to: textEnd - 1, by: 2).map { UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]) }
            return Self.cleaned(String(decoding: units, as: UTF16.self).replacingOccurrences(of: "\0", with: ""))
        default:
            return nil
        }
    }

    private static func cleaned(_ text: String) -> String? {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        return trimmed.isEmpty ? nil : trimmed
    }

    // MARK: Matching sRGB

    /// sRGB's primaries adapted to the D50 of the profile connection space (IEC 61966-2-1's
    /// profile): red, green, blue as XYZ.
    private static let srgbColorants: [(tag: String, xyz: (Double, Double, Double))] = [
        ("rXYZ", (0.4361, 0.2225, 0.0139)),
        ("gXYZ", (0.3851, 0.7169, 0.0971)),
        ("bXYZ", (0.1431, 0.0606, 0.7141)),
    ]

    /// How far a colorant may be from sRGB's and still be it: the spread between the
    /// published sRGB profiles' roundings.
    private static let colorantTolerance = 0.003
    /// How far a tone curve may be from sRGB's, in output from 0 to 1: about a code value
    /// of 8-bit output.
    private static let curveTolerance = 0.004

    var matchesSRGB: Bool {
        // Lookup tables take precedence over the matrix in a colour engine: a profile with
        // them is not judged by its matrix.
        guard !["A2B0", "A2B1", "A2B2", "B2A0"].contains(where: { tags[$0] != nil }) else { return false }
        switch colorSpace {
        case .rgb:
            for (tag, expected) in Self.srgbColorants {
                guard let xyz = xyz(tag), abs(xyz.0 - expected.0) <= Self.colorantTolerance,
                      abs(xyz.1 - expected.1) <= Self.colorantTolerance, abs(xyz.2 - expected.2) <= Self.colorantTolerance
                else { return false }
            }
            return ["rTRC", "gTRC", "bTRC"].allSatisfy { curveMatchesSRGB($0) }
        case .grey:
            return curveMatchesSRGB("kTRC")
        case .cmyk, .lab, .other:
            return false
        }
    }

    /// An `XYZ ` tag's first value.
    private func xyz(_ tag: String) -> (Double, Double, Double)? {
        guard let range = tags[tag], range.count >= 20, Self.signature(bytes, at: range.lowerBound) == "XYZ " else { return nil }
        let start = range.lowerBound + 8
        guard let x = Self.s15Fixed16(bytes, at: start), let y = Self.s15Fixed16(bytes, at: start + 4),
              let z = Self.s15Fixed16(bytes, at: start + 8) else { return nil }
        return (x, y, z)
    }

    /// Whether the tone curve `tag` is sRGB's at 33 points from 0 to 1.
    private func curveMatchesSRGB(_ tag: String) -> Bool {
        guard let curve = ToneCurve(bytes, range: tags[tag]) else { return false }
        return (0...32).allSatisfy { step in
            let x = Double(step) / 32
            return abs(curve.value(at: x) - ToneCurve.srgb(x)) <= Self.curveTolerance
        }
    }

    // MARK: Reading numbers

    static func uint32(_ bytes: [UInt8], at offset: Int) -> UInt32? {
        guard offset >= 0, offset + 4 <= bytes.count else { return nil }
        return bytes[offset..<offset + 4].reduce(0) { $0 << 8 | UInt32($1) }
    }

    static func uint16(_ bytes: [UInt8], at offset: Int) -> UInt16? {
        guard offset >= 0, offset + 2 <= bytes.count else { return nil }
        return UInt16(bytes[offset]) << 8 | UInt16(bytes[offset + 1])
    }

    static func s15Fixed16(_ bytes: [UInt8], at offset: Int) -> Double? {
        uint32(bytes, at: offset).map { Double(Int32(bitPattern: $0)) / 65536 }
    }

    static func signature(_ bytes: [UInt8], at offset: Int) -> String {
        guard offset >= 0, offset + 4 <= bytes.count else { return "" }
        return String(decoding: bytes[offset..<offset + 4], as: UTF8.self)
    }
}

/// An ICC tone curve (`curv` or `para`), from device value to linear light, both 0…1.
private enum ToneCurve {
    case gamma(Double)
    case table([Double])
    case parametric(function: Int, parameters: [Double])

    init?(_ bytes: [UInt8], range: Range<Int>?) {
        guard let range, range.count >= 12 else { return nil }
        let start = range.lowerBound
        switch ICCReader.signature(bytes, at: start) {
        case "curv":
            guard let count = ICCReader.uint32(bytes, at: start + 8), range.count >= 12 + Int(count) * 2 else { return nil }
            switch count {
            case 0: self = .gamma(1)
            case 1: self = .gamma(Double(ICCReader.uint16(bytes, at: start + 12) ?? 256) / 256)
            default:
                self = .table((0..<Int(count)).map { Double(ICCReader.uint16(bytes, at: start + 12 + $0 * 2) ?? 0) / 65535 })
            }
        case "para":
            guard let function = ICCReader.uint16(bytes, at: start + 8), function <= 4 else { return nil }
            let counts = [1, 3, 4, 5, 7]
            let count = counts[Int(function)]
            guard range.count >= 12 + count * 4 else { return nil }
            let parameters = (0..<count).compactMap { ICCReader.s15Fixed16(bytes, at: start + 12 + $0 * 4) }
            self = .parametric(function: Int(function), parameters: parameters)
        default:
            return nil
        }
    }

    func value(at x: Double) -> Double {
        switch self {
        case .gamma(let gamma):
            return pow(x, gamma)
        case .table(let table):
            let position = x * Double(table.count - 1)
            let index = min(Int(position), table.count - 2)
            let fraction = position - Double(index)
            return table[index] * (1 - fraction) + table[index + 1] * fraction
        case .parametric(let function, let p):
            let g = p[0]
            switch function {
            case 0: return pow(x, g)
            case 1: return x >= -p[2] / p[1] ? pow(p[1] * x + p[2], g) : 0
            case 2: return x >= -p[2] / p[1] ? pow(p[1] * x + p[2], g) + p[3] : p[3]
            case 3: return x >= p[4] ? pow(p[1] * x + p[2], g) : p[3] * x
            default: return x >= p[4] ? pow(p[1] * x + p[2], g) + p[5] : p[3] * x + p[6]
            }
        }
    }

    /// sRGB's own curve (IEC 61966-2-1).
    static func srgb(_ x: Double) -> Double {
        x <= 0.04045 ? x / 12.92 : pow((x + 0.055) / 1.055, 2.4)
    }
}
