import ArgumentParser
import Foundation
import WebImage

/// Parsers for option values; each error says what was wrong and what to write instead.
enum Arguments {
    /// A size written `WxH` (`--thumbnail 200x150`).
    static func size(_ text: String) throws -> PixelSize {
        let parts = text.lowercased().split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count == 2, let width = Int(parts[0]), let height = Int(parts[1]),
              (1...100_000).contains(width), (1...100_000).contains(height)
        else {
            throw ValidationError("'\(text)' is not a size: write WIDTHxHEIGHT in pixels, e.g. 200x150")
        }
        return PixelSize(width: width, height: height)
    }

    /// A resize written `MODE:WxH` (`--resize fill:200x150`), MODE one of fit, fill,
    /// fill-down, force.
    static func resize(_ text: String) throws -> ResizeTransformer {
        let modes = ResizeMode.allCases.map(\.rawValue).joined(separator: ", ")
        let parts = text.split(separator: ":", maxSplits: 1)
        guard parts.count == 2, let mode = ResizeMode(rawValue: String(parts[0]).lowercased()) else {
            throw ValidationError("'\(text)' is not a resize: write MODE:WIDTHxHEIGHT with MODE one of \(modes), e.g. fill:200x150")
        }
        return ResizeTransformer(size: try size(String(parts[1])), mode: mode)
    }

    /// A format `fetch --format` writes, named by its extension or media type (`jpg`,
    /// `jpeg`, `image/webp`, `tif`…): any ``OutputFormats/writable`` one.
    static func outputFormat(_ text: String) throws -> ImageFormat {
        guard let format = ImageFormat(name: text), OutputFormats.writable.contains(format) else {
            throw ValidationError("'\(text)' is not a format written here: write one of \(OutputFormats.names)")
        }
        return format
    }

    /// A duration written as a number and a unit: `90s`, `30m`, `12h`, `7d`, `2w`.
    static func duration(_ text: String) throws -> TimeInterval {
        let units: [Character: TimeInterval] = ["s": 1, "m": 60, "h": 3600, "d": 86400, "w": 7 * 86400]
        guard let unit = text.last.flatMap({ units[$0] }), let value = Double(text.dropLast()), value >= 0, value.isFinite else {
            throw ValidationError("'\(text)' is not a duration: write a number and a unit s, m, h, d or w, e.g. 30m or 7d")
        }
        return value * unit
    }

    /// A byte count with an optional unit: `500000`, `200M`, `1.5G`, `64Ki`.
    static func byteSize(_ text: String) throws -> Int {
        let units: [String: Double] = [
            "": 1, "b": 1, "k": 1e3, "kb": 1e3, "m": 1e6, "mb": 1e6, "g": 1e9, "gb": 1e9,
            "ki": 1024, "kib": 1024, "mi": 1_048_576, "mib": 1_048_576, "gi": 1_073_741_824, "gib": 1_073_741_824,
        ]
        let lowered = text.lowercased()
        let number = lowered.prefix { $0.isNumber || $0 == "." }
        guard let value = Double(number), let unit = units[String(lowered.dropFirst(number.count))], value >= 0,
              value * unit < Double(Int.max)
        else {
            throw ValidationError("'\(text)' is not a size in bytes: write a number with an optional unit k, M, G (or Ki, Mi, Gi), e.g. 500M")
        }
        return Int(value * unit)
    }

    /// Throws unless `value`, given as `--option`, is within `range`.
    static func check(_ value: Int, in range: ClosedRange<Int>, option: String) throws(ValidationError) {
        guard range.contains(value) else {
            throw ValidationError("--\(option) \(value) is out of range: pass a number from \(range.lowerBound) to \(range.upperBound)")
        }
    }

    /// The schemes the pipeline's loaders handle.
    static let schemes: Set<String> = ["http", "https", "file", "data"]

    /// `text` as a URL with a scheme the tool can load.
    static func url(_ text: String) throws(ValidationError) -> URL {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), schemes.contains(scheme),
              scheme == "data" || scheme == "file" || url.host?.isEmpty == false
        else {
            throw ValidationError("'\(text)' is not a URL the tool can load: pass an http(s)://, file:// or data: URL")
        }
        return url
    }
}

/// The formats `fetch --format` writes: the writable ones this machine's libvips encodes.
enum OutputFormats {
    static let writable = ImageFormat.allCases.filter { $0.isWritable && VipsCoder.shared.canEncode($0) }

    /// Their names, for help and errors.
    static var names: String { writable.map(\.rawValue).joined(separator: ", ") }
}
