import Foundation
import WebImage

/// One setting of `webimage serve`, written once: the field of ``ServerConfig`` it sets,
/// its `--flag` and `WEBIMAGE_*` variable, the `IMGPROXY_*` variables read into it, what
/// its text holds, its default under each ``ServerProfile``, and its help.
///
/// The settings are the static members of this type, section by section
/// (``SettingSection``); ``allCases`` lists them all. Flags, `WEBIMAGE_*` and `IMGPROXY_*`
/// variables are all read through them, so that each gives the same messages, built from
/// the setting's names.
public struct ServerSetting: Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// The name of the setting: the ``ServerConfig`` field it sets, in most cases.
    public let name: String
    /// The part of the server it configures.
    public let section: SettingSection
    /// The command-line flag, without the leading dashes.
    public let flag: String
    /// The environment variable.
    public let environmentName: String
    /// The `IMGPROXY_*` variables read into it, with imgproxy's meaning and format.
    public let imgproxyNames: [ImgproxyName]
    /// What its text holds.
    public let kind: SettingKind
    /// The values it may take, checked by ``ServerConfig/validate()``; `nil`: any it reads.
    public let bounds: SettingBounds?
    /// What its value is called in the help, e.g. `N`, `SIZE`; `nil` for a boolean.
    public let placeholder: String?
    /// Its default under ``ServerProfile/webimage``, as the settings page writes it (Markdown).
    public let defaultText: String
    /// Its value under ``ServerProfile/imgproxy``, as text it reads, when that differs from
    /// WebImage's: ``ServerProfile/defaults`` applies it.
    public let imgproxyDefault: [String]?
    /// What it does, as the settings page writes it (Markdown).
    public let help: String
    /// Sets the value read from its text (the values of a list, or one value).
    let read: @Sendable (ServerSetting, [String], inout ServerConfig) throws(ServerConfigError) -> Void
    /// The value ``bounds`` are checked against, and its text; `nil` when there is none to check.
    let checkedValue: (@Sendable (ServerConfig) -> (Double, String)?)?
    /// The setting's own check of its value, beyond ``bounds``.
    let ownCheck: (@Sendable (ServerSetting, ServerConfig) throws(ServerConfigError) -> Void)?

    /// An `IMGPROXY_*` variable read into a setting, and how its value is read.
    public struct ImgproxyName: Sendable, Hashable {
        /// How imgproxy's value is read.
        public enum Reading: Sendable, Hashable {
            /// Read as the setting reads its own text: imgproxy's format and unit are WebImage's.
            case same
            /// As ``same``, except 0, imgproxy's "no limit", which keeps the default.
            case zeroKeepsDefault
            /// Read by ``ImgproxyEnvironment``'s own reader of the variable.
            case own
        }

        /// The variable.
        public let name: String
        /// How its value is read.
        public let reading: Reading
        /// Whether imgproxy's own code reads it (docs/imgproxy.md's table lists those);
        /// `false` for imgproxy's former names and imgproxy Pro's.
        public let isImgproxys: Bool
        /// What docs/imgproxy.md says of it after the flag, if anything.
        public let note: String?
    }

    /// The setting named `name`, `flag` and `environmentName` derived from it unless given.
    init(
        _ name: String, _ section: SettingSection, kind: SettingKind, bounds: SettingBounds? = nil, placeholder: String?,
        flag: String? = nil, environmentName: String? = nil, imgproxy: [ImgproxyName] = [],
        default defaultText: String, imgproxyDefault: [String]? = nil, help: String,
        checkedValue: (@Sendable (ServerConfig) -> (Double, String)?)? = nil,
        check: (@Sendable (ServerSetting, ServerConfig) throws(ServerConfigError) -> Void)? = nil,
        read: @escaping @Sendable (ServerSetting, [String], inout ServerConfig) throws(ServerConfigError) -> Void
    ) {
        let flag = flag ?? name.replacing(/([A-Z])/) { "-" + $0.output.1.lowercased() }
        self.name = name
        self.section = section
        self.flag = flag
        self.environmentName = environmentName ?? "WEBIMAGE_" + flag.uppercased().replacing("-", with: "_")
        self.imgproxyNames = imgproxy
        self.kind = kind
        self.bounds = bounds
        self.placeholder = placeholder
        self.defaultText = defaultText
        self.imgproxyDefault = imgproxyDefault
        self.help = help
        self.checkedValue = checkedValue
        self.ownCheck = check
        self.read = read
    }

    /// Every setting, section by section.
    public static let allCases: [ServerSetting] = listenSettings + signingSettings + sourceSettings + limitSettings
        + encodingSettings + cachingSettings + responseSettings + operationSettings

    /// The setting whose flag is `flag`.
    public static let byFlag: [String: ServerSetting] = Dictionary(uniqueKeysWithValues: allCases.map { ($0.flag, $0) })

    /// Whether the setting holds a list: repeated flags, or a comma-separated variable.
    public var isList: Bool { kind == .list }

    /// The flag.
    public var description: String { "--" + flag }

    /// Where the setting is given: its flag, its `WEBIMAGE_*` variable and its `IMGPROXY_*` ones.
    public var names: String {
        (["--" + flag, environmentName] + imgproxyNames.map(\.name)).joined(separator: ", ")
    }

    /// The setting's name in messages: its flag's words.
    public var label: String { flag.replacing("-", with: " ") }

    /// An error saying `problem`, followed by where the setting is given.
    public func error(_ problem: String) -> ServerConfigError {
        ServerConfigError("\(problem) (\(names))")
    }

    /// Two settings are the same when their flags are.
    public static func == (lhs: ServerSetting, rhs: ServerSetting) -> Bool { lhs.flag == rhs.flag }

    /// Hashes the flag.
    public func hash(into hasher: inout Hasher) { hasher.combine(flag) }

    /// Reads every `WEBIMAGE_*` variable of `environment` into `config`.
    public static func apply(environment: [String: String], to config: inout ServerConfig) throws(ServerConfigError) {
        for setting in allCases {
            guard let value = environment[setting.environmentName] else { continue }
            try setting.apply(setting.isList ? SettingText.list(value) : [value], to: &config)
        }
    }

    /// Sets the setting from its text form: the values of a list (replacing the list), or one value.
    public func apply(_ values: [String], to config: inout ServerConfig) throws(ServerConfigError) {
        try read(self, values, &config)
    }

    /// Checks the value of `config` against ``bounds`` and the setting's own check.
    func check(_ config: ServerConfig) throws(ServerConfigError) {
        if let bounds, let (value, text) = checkedValue?(config), !bounds.contains(value) {
            throw error(bounds.problem(label, text))
        }
        try ownCheck?(self, config)
    }

    /// A boolean environment variable read as the settings read booleans; `nil` when unset or empty.
    public static func boolean(named name: String, in environment: [String: String]) throws(ServerConfigError) -> Bool? {
        guard let value = environment[name], !value.trimmingCharacters(in: .whitespaces).isEmpty else { return nil }
        guard let boolean = parsedBoolean(value) else {
            throw ServerConfigError("\(name): '\(value)' is not \(SettingText.booleanForms)")
        }
        return boolean
    }

    /// `true`/`false`, `t`/`f`, `1`/`0`, `yes`/`no`, `on`/`off` in any case; `nil` for anything else.
    static func parsedBoolean(_ value: String) -> Bool? {
        switch value.lowercased().trimmingCharacters(in: .whitespaces) {
        case "1", "t", "true", "yes", "on": true
        case "0", "f", "false", "no", "off": false
        default: nil
        }
    }

    /// The error of a value that cannot be read: the flag and the variable, the value, and
    /// what was `expected`.
    func invalid(_ value: String, _ expected: String) -> ServerConfigError {
        ServerConfigError("\(Self.readingPrefix(flag: flag, environmentName: environmentName)): '\(value)' is not \(expected)")
    }

    /// What an error of a value read starts with; ``ImgproxyEnvironment`` puts the variable
    /// it read in its place.
    var readingPrefix: String { Self.readingPrefix(flag: flag, environmentName: environmentName) }

    private static func readingPrefix(flag: String, environmentName: String) -> String {
        "--\(flag) / \(environmentName)"
    }
}
