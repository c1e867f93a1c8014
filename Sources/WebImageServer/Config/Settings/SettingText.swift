import Foundation
import WebImage

/// How the text of a ``ServerSetting`` is read, by its ``SettingKind``; a value that cannot
/// be read throws the setting's error, naming its flag and variable.
enum SettingText {
    /// What a boolean takes, in messages.
    static let booleanForms = "a boolean (true/false, t/f, 1/0, yes/no)"

    /// A URL path as imgproxy reads its path settings: a query and a fragment cut off, one
    /// `/` at the end dropped and one at the start added, so that `images`, `/images/` and
    /// `/images` are one prefix; `/` and the empty text are none.
    static func urlPath(_ value: String) -> String {
        var path = Substring(value.trimmingCharacters(in: .whitespaces))
        if let query = path.firstIndex(where: { $0 == "?" || $0 == "#" }) { path = path[..<query] }
        if path.hasSuffix("/") { path = path.dropLast() }
        if !path.isEmpty, !path.hasPrefix("/") { return "/" + path }
        return String(path)
    }

    /// A comma-separated list: items trimmed, empty items dropped.
    static func list(_ value: String) -> [String] {
        value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    static func boolean(_ value: String, _ setting: ServerSetting) throws(ServerConfigError) -> Bool {
        guard let boolean = ServerSetting.parsedBoolean(value) else { throw setting.invalid(value, booleanForms) }
        return boolean
    }

    static func integer(_ value: String, _ setting: ServerSetting) throws(ServerConfigError) -> Int {
        guard let number = Int(value.trimmingCharacters(in: .whitespaces)) else { throw setting.invalid(value, "a whole number") }
        return number
    }

    /// A decimal number; `example` is one the setting takes.
    static func decimal(_ value: String, _ setting: ServerSetting, example: String) throws(ServerConfigError) -> Double {
        guard let number = Double(value.trimmingCharacters(in: .whitespaces)), number.isFinite else {
            throw setting.invalid(value, "a number, e.g. \(example)")
        }
        return number
    }

    /// Bytes, with an optional K, M or G suffix (powers of 1024).
    static func bytes(_ value: String, _ setting: ServerSetting) throws(ServerConfigError) -> Int {
        var text = value.trimmingCharacters(in: .whitespaces).uppercased()
        if text.hasSuffix("B") { text.removeLast() }
        var multiplier = 1
        if let last = text.last, let shift = ["K": 10, "M": 20, "G": 30][String(last)] {
            multiplier = 1 << shift
            text.removeLast()
        }
        guard let number = Int(text), number >= 0, number <= Int.max / multiplier else {
            throw setting.invalid(value, "a byte count, e.g. 10485760, 512K, 64M or 2G")
        }
        return number * multiplier
    }

    /// Seconds, decimals allowed, with an optional `s` or `ms` suffix; zero too when
    /// `zeroIsOff`, for the settings imgproxy reads 0 as "off".
    static func seconds(_ value: String, _ setting: ServerSetting, zeroIsOff: Bool) throws(ServerConfigError) -> Duration {
        let text = value.trimmingCharacters(in: .whitespaces).lowercased()
        if zeroIsOff, Double(text) == 0 { return .zero }
        if text.hasSuffix("ms"), let millis = Double(text.dropLast(2)), millis > 0 {
            return .milliseconds(Int64(millis))
        }
        let number = text.hasSuffix("s") ? String(text.dropLast()) : text
        guard let seconds = Double(number), seconds > 0, seconds < 1e9 else {
            throw setting.invalid(value, "a duration in seconds, e.g. 10, 2.5 or 500ms")
        }
        return .milliseconds(Int64(seconds * 1000))
    }

    /// A comma-separated list of format names.
    static func formats(_ value: String, _ setting: ServerSetting) throws(ServerConfigError) -> [ImageFormat] {
        var formats: [ImageFormat] = []
        for name in value.split(separator: ",") {
            guard let format = ImageFormat(name: name.trimmingCharacters(in: .whitespaces)) else {
                throw setting.invalid(value, "a comma-separated list of jpeg, png, gif, webp, avif, heic, tiff, jxl, bmp, ico")
            }
            formats.append(format)
        }
        return formats
    }

    /// One of `Choice`'s raw values, in any case.
    static func choice<Choice: RawRepresentable & CaseIterable>(
        _ value: String, _ setting: ServerSetting
    ) throws(ServerConfigError) -> Choice where Choice.RawValue == String {
        guard let choice = Choice(rawValue: value.trimmingCharacters(in: .whitespaces).lowercased()) else {
            throw setting.invalid(value, "one of " + Choice.allCases.map(\.rawValue).joined(separator: ", "))
        }
        return choice
    }
}
