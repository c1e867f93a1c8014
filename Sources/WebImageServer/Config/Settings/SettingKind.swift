import Foundation

/// What a ``ServerSetting``'s text holds, which says how a flag takes it (`--x` / `--no-x`
/// for a boolean, repeated for a list) and how its value is checked.
public enum SettingKind: Sendable, Equatable {
    /// `true`/`false`, `t`/`f`, `1`/`0`, `yes`/`no`, `on`/`off`.
    case bool
    /// A whole number, within ``ServerSetting/bounds`` when it has some.
    case integer
    /// A byte count with an optional `K`, `M` or `G` suffix.
    case bytes
    /// Seconds, decimals allowed, or milliseconds with `ms`; `zeroIsOff`: 0 turns it off.
    case seconds(zeroIsOff: Bool)
    /// A decimal number within ``ServerSetting/bounds``.
    case fraction
    /// A list: repeated flags, or a comma-separated variable.
    case list
    /// One of these names.
    case choice([String])
    /// Text taken as it is.
    case text
    /// Text read by a parser of the setting's own, which says what it expects.
    case custom
}

/// The values a numeric ``ServerSetting`` may take, checked by ``ServerConfig/validate()``
/// (and, for ``SettingKind/fraction``, when the text is read) with one message.
public enum SettingBounds: Sendable, Equatable {
    /// At least this much.
    case atLeast(Int)
    /// From the first to the last, both included.
    case within(ClosedRange<Int>)
    /// From the first to the last, both included, decimals allowed.
    case fraction(ClosedRange<Double>)

    /// Whether `value` is inside.
    func contains(_ value: Double) -> Bool {
        switch self {
        case .atLeast(let minimum): value >= Double(minimum)
        case .within(let range): value >= Double(range.lowerBound) && value <= Double(range.upperBound)
        case .fraction(let range): range.contains(value)
        }
    }

    /// What is wrong with `value` (written as `text`), said of `label`.
    func problem(_ label: String, _ text: String) -> String {
        switch self {
        case .atLeast(0): "\(label) must be 0 or more, not \(text)"
        case .atLeast(let minimum): "\(label) must be at least \(minimum), not \(text)"
        case .within(let range): "\(label) \(text) is not in \(range.lowerBound)…\(range.upperBound)"
        case .fraction(let range): "\(label) \(text) is not in \(range.lowerBound.formatted())…\(range.upperBound.formatted())"
        }
    }
}
