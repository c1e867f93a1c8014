import Foundation
import WebImage

/// The settings of each ``SettingKind``, by the field of ``ServerConfig`` they set: the
/// reading, the check of ``ServerSetting/bounds`` and, where the field's own default says
/// it, the default's text come from the kind.
extension ServerSetting {
    /// A field of ``ServerConfig`` holding `Value`.
    typealias Field<Value> = WritableKeyPath<ServerConfig, Value> & Sendable
    /// A setting's own check of its value: it throws the setting's ``ServerSetting/error(_:)``.
    typealias Check<Value> = @Sendable (ServerSetting, Value) throws(ServerConfigError) -> Void

    /// `check` of the value in `field`, when there is one.
    private static func checking<Value: Sendable>(
        _ field: Field<Value?>, _ check: Check<Value>?
    ) -> (@Sendable (ServerSetting, ServerConfig) throws(ServerConfigError) -> Void)? {
        guard let check else { return nil }
        return { setting, config throws(ServerConfigError) in
            if let value = config[keyPath: field] { try check(setting, value) }
        }
    }

    /// `check` of the value in `field`.
    private static func checking<Value: Sendable>(
        _ field: Field<Value>, _ check: Check<Value>?
    ) -> (@Sendable (ServerSetting, ServerConfig) throws(ServerConfigError) -> Void)? {
        guard let check else { return nil }
        return { setting, config throws(ServerConfigError) in try check(setting, config[keyPath: field]) }
    }

    /// An `IMGPROXY_*` variable read as the setting reads its text; `isImgproxys`: false
    /// for a former name of imgproxy's, or imgproxy Pro's.
    static func same(_ name: String, isImgproxys: Bool = true, note: String? = nil) -> ImgproxyName {
        ImgproxyName(name: name, reading: .same, isImgproxys: isImgproxys, note: note)
    }
    /// An `IMGPROXY_*` variable whose 0 (imgproxy's "no limit") keeps the default.
    static func zeroKeepsDefault(_ name: String) -> ImgproxyName {
        ImgproxyName(name: name, reading: .zeroKeepsDefault, isImgproxys: true, note: nil)
    }
    /// An `IMGPROXY_*` variable ``ImgproxyEnvironment`` reads with a reader of its own.
    static func own(_ name: String, isImgproxys: Bool = true) -> ImgproxyName {
        ImgproxyName(name: name, reading: .own, isImgproxys: isImgproxys, note: nil)
    }

    /// The default's text from the field of WebImage's defaults.
    private static func defaultText<Value: Sendable>(_ field: Field<Value>, _ text: (Value) -> String) -> String {
        text(ServerConfig()[keyPath: field])
    }

    /// A boolean: `--x` / `--no-x`.
    static func bool(
        _ name: String, _ section: SettingSection, _ field: Field<Bool>, flag: String? = nil, imgproxy: [ImgproxyName] = [],
        default defaultText: String? = nil, imgproxyDefault: Bool? = nil, help: String
    ) -> ServerSetting {
        ServerSetting(
            name, section, kind: .bool, placeholder: nil, flag: flag, imgproxy: imgproxy,
            default: defaultText ?? Self.defaultText(field) { $0 ? "on" : "off" }, imgproxyDefault: imgproxyDefault.map { [String($0)] },
            help: help
        ) { setting, values, config throws(ServerConfigError) in
            config[keyPath: field] = try SettingText.boolean(values.last ?? "", setting)
        }
    }

    /// A whole number within `bounds`.
    static func integer(
        _ name: String, _ section: SettingSection, _ field: Field<Int>, bounds: SettingBounds?, placeholder: String = "N",
        flag: String? = nil, imgproxy: [ImgproxyName] = [], default defaultText: String? = nil, imgproxyDefault: Int? = nil,
        help: String
    ) -> ServerSetting {
        ServerSetting(
            name, section, kind: .integer, bounds: bounds, placeholder: placeholder, flag: flag, imgproxy: imgproxy,
            default: defaultText ?? Self.defaultText(field) { "`\($0)`" }, imgproxyDefault: imgproxyDefault.map { [String($0)] },
            help: help, checkedValue: { config in (Double(config[keyPath: field]), String(config[keyPath: field])) }
        ) { setting, values, config throws(ServerConfigError) in
            config[keyPath: field] = try SettingText.integer(values.last ?? "", setting)
        }
    }

    /// A byte count within `bounds`.
    static func bytes(
        _ name: String, _ section: SettingSection, _ field: Field<Int>, bounds: SettingBounds?, placeholder: String = "SIZE",
        imgproxy: [ImgproxyName] = [], default defaultText: String, help: String
    ) -> ServerSetting {
        ServerSetting(
            name, section, kind: .bytes, bounds: bounds, placeholder: placeholder, imgproxy: imgproxy, default: defaultText,
            help: help, checkedValue: { config in (Double(config[keyPath: field]), String(config[keyPath: field])) }
        ) { setting, values, config throws(ServerConfigError) in
            config[keyPath: field] = try SettingText.bytes(values.last ?? "", setting)
        }
    }

    /// A duration in seconds; with `zeroIsOff`, 0 turns what it times off.
    static func seconds(
        _ name: String, _ section: SettingSection, _ field: Field<Duration>, zeroIsOff: Bool = false, imgproxy: [ImgproxyName] = [],
        default defaultText: String? = nil, imgproxyDefault: Int? = nil, help: String
    ) -> ServerSetting {
        ServerSetting(
            name, section, kind: .seconds(zeroIsOff: zeroIsOff), placeholder: "S", imgproxy: imgproxy,
            default: defaultText ?? Self.defaultText(field) { "`\($0.components.seconds)`" }, imgproxyDefault: imgproxyDefault.map { [String($0)] },
            help: help,
            check: { setting, config throws(ServerConfigError) in
                let duration = config[keyPath: field]
                if zeroIsOff, duration < .zero { throw setting.error("the \(setting.label) must be 0 (off) or more") }
                if !zeroIsOff, duration <= .zero { throw setting.error("the \(setting.label) must be positive") }
            }
        ) { setting, values, config throws(ServerConfigError) in
            config[keyPath: field] = try SettingText.seconds(values.last ?? "", setting, zeroIsOff: zeroIsOff)
        }
    }

    /// A decimal number within `bounds`, checked when read as well.
    static func fraction(
        _ name: String, _ section: SettingSection, _ field: Field<Double>, bounds: ClosedRange<Double>, placeholder: String,
        example: String, imgproxy: [ImgproxyName] = [], help: String
    ) -> ServerSetting {
        ServerSetting(
            name, section, kind: .fraction, bounds: .fraction(bounds), placeholder: placeholder, imgproxy: imgproxy,
            default: Self.defaultText(field) { "`\($0.formatted())`" }, help: help,
            checkedValue: { config in (config[keyPath: field], config[keyPath: field].formatted()) }
        ) { setting, values, config throws(ServerConfigError) in
            let value = values.last ?? ""
            let number = try SettingText.decimal(value, setting, example: example)
            guard bounds.contains(number) else { throw setting.error(SettingBounds.fraction(bounds).problem(setting.label, value)) }
            config[keyPath: field] = number
        }
    }

    /// Text taken as it is.
    static func text(
        _ name: String, _ section: SettingSection, _ field: Field<String>, placeholder: String, imgproxy: [ImgproxyName] = [],
        default defaultText: String? = nil, imgproxyDefault: String? = nil, help: String, check: Check<String>? = nil
    ) -> ServerSetting {
        ServerSetting(
            name, section, kind: .text, placeholder: placeholder, imgproxy: imgproxy,
            default: defaultText ?? Self.defaultText(field) { "`\($0)`" },
            imgproxyDefault: imgproxyDefault.map { [$0] }, help: help, check: checking(field, check)
        ) { _, values, config throws(ServerConfigError) in
            config[keyPath: field] = values.last ?? ""
        }
    }

    /// Text that may be absent: empty is `nil`.
    static func optionalText(
        _ name: String, _ section: SettingSection, _ field: Field<String?>, placeholder: String, flag: String? = nil,
        imgproxy: [ImgproxyName] = [], default defaultText: String = "none", help: String,
        normalized normalize: (@Sendable (String) -> String)? = nil, check: Check<String>? = nil
    ) -> ServerSetting {
        ServerSetting(
            name, section, kind: .text, placeholder: placeholder, flag: flag, imgproxy: imgproxy, default: defaultText, help: help,
            check: checking(field, check)
        ) {
            _, values, config throws(ServerConfigError) in
            let value = normalize.map { $0(values.last ?? "") } ?? values.last ?? ""
            config[keyPath: field] = value.isEmpty ? nil : value
        }
    }

    /// A list of text: a repeated flag, or a comma-separated variable, named in the plural.
    static func list(
        _ name: String, _ section: SettingSection, _ field: Field<[String]>, placeholder: String, imgproxy: [ImgproxyName] = [],
        default defaultText: String = "none", help: String, check: Check<[String]>? = nil
    ) -> ServerSetting {
        ServerSetting(
            name, section, kind: .list, placeholder: placeholder, environmentName: pluralVariable(name), imgproxy: imgproxy,
            default: defaultText, help: help, check: checking(field, check)
        ) { _, values, config throws(ServerConfigError) in
            config[keyPath: field] = values
        }
    }

    /// The `WEBIMAGE_*` variable of a list: the flag's, in the plural.
    static func pluralVariable(_ name: String) -> String {
        "WEBIMAGE_" + name.replacing(/([A-Z])/) { "_" + $0.output.1 }.uppercased() + "S"
    }

    /// A comma-separated list of formats.
    static func formats(
        _ name: String, _ section: SettingSection, _ field: Field<[ImageFormat]>, imgproxy: [ImgproxyName] = [],
        default defaultText: String? = nil, imgproxyDefault: String? = nil, help: String
    ) -> ServerSetting {
        ServerSetting(
            name, section, kind: .custom, placeholder: "LIST", imgproxy: imgproxy,
            default: defaultText ?? Self.defaultText(field) { "`" + $0.map(\.rawValue).joined(separator: ",") + "`" },
            imgproxyDefault: imgproxyDefault.map { [$0] }, help: help,
            check: checking(field) { setting, formats throws(ServerConfigError) in
                guard !formats.isEmpty else { throw setting.error("\(setting.label) must name at least one format") }
                for format in formats where !format.isWritable {
                    throw setting.error("\(setting.label) '\(format.rawValue)' cannot be written; use jpeg, png, gif, webp, avif, heic, tiff, jxl, bmp or ico")
                }
            }
        ) { setting, values, config throws(ServerConfigError) in
            config[keyPath: field] = try SettingText.formats(values.last ?? "", setting)
        }
    }

    /// One of `Choice`'s raw values.
    static func choice<Choice: RawRepresentable & CaseIterable & Sendable>(
        _ name: String, _ section: SettingSection, _ field: Field<Choice>, placeholder: String, imgproxy: [ImgproxyName] = [],
        default defaultText: String? = nil, imgproxyDefault: Choice? = nil, help: String
    ) -> ServerSetting where Choice.RawValue == String {
        ServerSetting(
            name, section, kind: .choice(Choice.allCases.map(\.rawValue)), placeholder: placeholder, imgproxy: imgproxy,
            default: defaultText ?? Self.defaultText(field) { "`\($0.rawValue)`" }, imgproxyDefault: imgproxyDefault.map { [$0.rawValue] }, help: help
        ) { setting, values, config throws(ServerConfigError) in
            config[keyPath: field] = try SettingText.choice(values.last ?? "", setting)
        }
    }
}
