/// The settings given on the command line of `webimage serve`, read through the catalog:
/// `--flag VALUE` or `--flag=VALUE`, `--x` / `--no-x` for a boolean, a list's flag repeated.
/// A setting given twice keeps its last value; a list keeps every value, in order.
public struct ServerSettingArguments: Sendable {
    /// The values given, by setting.
    public private(set) var values: [ServerSetting: [String]] = [:]

    /// Reads `arguments`.
    /// - Throws: ``ServerConfigError`` for an argument that is not a setting's flag, or a
    ///   flag without its value.
    public init(_ arguments: [String]) throws(ServerConfigError) {
        var index = arguments.startIndex
        while index < arguments.endIndex {
            let argument = arguments[index]
            index += 1
            guard argument.hasPrefix("--") else { throw ServerConfigError("Unexpected argument '\(argument)'") }
            let text = argument.dropFirst(2)
            let name = text.prefix { $0 != "=" }
            let inline = name.endIndex < text.endIndex ? String(text[text.index(after: name.endIndex)...]) : nil
            if let setting = ServerSetting.byFlag[String(name)], setting.kind == .bool {
                guard inline == nil else { throw ServerConfigError("--\(name) takes no value; --no-\(name) turns it off") }
                values[setting] = ["true"]
            } else if name.hasPrefix("no-"), let setting = ServerSetting.byFlag[String(name.dropFirst(3))], setting.kind == .bool {
                guard inline == nil else { throw ServerConfigError("--\(name) takes no value") }
                values[setting] = ["false"]
            } else if let setting = ServerSetting.byFlag[String(name)] {
                let value: String
                if let inline {
                    value = inline
                } else {
                    guard index < arguments.endIndex else {
                        throw ServerConfigError("Missing value for '--\(name) \(setting.placeholder ?? "VALUE")'")
                    }
                    value = arguments[index]
                    index += 1
                }
                values[setting] = setting.isList ? (values[setting] ?? []) + [value] : [value]
            } else {
                throw ServerConfigError("Unknown option '--\(name)'")
            }
        }
    }

    /// The last value given for `setting`, or `nil`.
    public func value(of setting: ServerSetting) -> String? { values[setting]?.last }

    /// The boolean given for `setting`, or `nil`.
    public func boolean(_ setting: ServerSetting) throws(ServerConfigError) -> Bool? {
        guard let value = value(of: setting) else { return nil }
        return try SettingText.boolean(value, setting)
    }

    /// Applies every setting given to `config`, in the catalog's order.
    public func apply(to config: inout ServerConfig) throws(ServerConfigError) {
        for setting in ServerSetting.allCases {
            if let given = values[setting] { try setting.apply(given, to: &config) }
        }
    }
}
