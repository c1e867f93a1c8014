import Foundation
import WebImage

/// The settings of ``SettingSection/signing``.
extension ServerSetting {
    /// The settings of ``SettingSection/signing``, in the order the help lists them.
    static let signingSettings: [ServerSetting] = [
        key, salt, signatureSize, trustedSignature, sourceURLEncryptionKey, preset, onlyPresets, allowedProcessingOption,
        allowSecurityOptions, argumentsSeparator, base64URLIncludesFilename,
    ]

    /// `--key`: signing keys, paired in order with the salts.
    public static let key = list(
        "key", .signing, \.signing.keys, placeholder: "HEX",
        imgproxy: [same("IMGPROXY_KEY")],
        default: "none: URLs unsigned",
        help: "signing keys, paired in order with the salts"
    )

    /// `--salt`: one salt per key (may be empty).
    public static let salt = list(
        "salt", .signing, \.signing.salts, placeholder: "HEX",
        imgproxy: [same("IMGPROXY_SALT")],
        help: "one salt per key (may be empty)"
    )

    /// `--signature-size`: bytes of the HMAC kept in a signature, 1–32.
    public static let signatureSize = integer(
        "signatureSize", .signing, \.signing.signatureSize, bounds: .within(1...32),
        imgproxy: [same("IMGPROXY_SIGNATURE_SIZE")],
        help: "bytes of the HMAC kept in a signature, 1–32"
    )

    /// `--trusted-signature`: signature segments accepted without a check (URLs signed elsewhere).
    public static let trustedSignature = list(
        "trustedSignature", .signing, \.signing.trustedSignatures, placeholder: "SIG",
        imgproxy: [same("IMGPROXY_TRUSTED_SIGNATURES")],
        help: "signature segments accepted without a check (URLs signed elsewhere)"
    )

    /// `--source-url-encryption-key`: AES key (16, 24 or 32 bytes) of `enc/` sources.
    public static let sourceURLEncryptionKey = optionalText(
        "sourceURLEncryptionKey", .signing, \.signing.sourceURLEncryptionKey, placeholder: "HEX",
        flag: "source-url-encryption-key",
        imgproxy: [same("IMGPROXY_SOURCE_URL_ENCRYPTION_KEY", isImgproxys: false)],
        default: "none: `enc/` refused",
        help: "AES key (16, 24 or 32 bytes) of `enc/` sources"
    )

    /// `--preset`: presets (processing-options.md).
    public static let preset = ServerSetting(
        "preset", .signing, kind: .list, placeholder: "NAME=OPTIONS", environmentName: "WEBIMAGE_PRESETS",
        imgproxy: [own("IMGPROXY_PRESETS"), own("IMGPROXY_PRESETS_PATH"), own("IMGPROXY_PRESETS_SEPARATOR")],
        default: "none",
        help: "presets ([processing-options.md](processing-options.md#presets))"
    ) { setting, values, config throws(ServerConfigError) in
        var presets: [String: String] = [:]
        for item in values {
            guard let equals = item.firstIndex(of: "="), equals != item.startIndex else {
                throw setting.invalid(item, "name=options, e.g. thumb=rs:fill:300:300/q:70")
            }
            presets[String(item[..<equals])] = String(item[item.index(after: equals)...])
        }
        config.signing.presets = presets
    }

    /// `--only-presets`: the options segment is `:`-separated preset names only.
    public static let onlyPresets = bool(
        "onlyPresets", .signing, \.signing.onlyPresets,
        imgproxy: [same("IMGPROXY_ONLY_PRESETS")],
        help: "the options segment is `:`-separated preset names only"
    )

    /// `--allowed-processing-option`: the only option names URLs may use, as written (`w` does not allow `width`); presets may use any.
    public static let allowedProcessingOption = list(
        "allowedProcessingOption", .signing, \.signing.allowedProcessingOptions, placeholder: "NAME",
        imgproxy: [same("IMGPROXY_ALLOWED_PROCESSING_OPTIONS")],
        default: "all",
        help: "the only option names URLs may use, as written (`w` does not allow `width`); presets may use any",
        check: { setting, names throws(ServerConfigError) in
            for name in names where ProcessingOptionName.byName[Substring(name)] == nil {
                throw setting.error("allowed processing option '\(name)' is not a processing option, e.g. w, h, rs, q, f")
            }
        }
    )

    /// `--allow-security-options`: let URLs set their own limits (`max_src_resolution` and the other security options).
    public static let allowSecurityOptions = bool(
        "allowSecurityOptions", .signing, \.signing.allowSecurityOptions,
        imgproxy: [same("IMGPROXY_ALLOW_SECURITY_OPTIONS")],
        help: "let URLs set their own limits (`max_src_resolution` and the other security options)"
    )

    /// `--arguments-separator`: separator of an option's name and arguments, in URLs and presets.
    public static let argumentsSeparator = ServerSetting(
        "argumentsSeparator", .signing, kind: .custom, placeholder: "C",
        imgproxy: [same("IMGPROXY_ARGUMENTS_SEPARATOR")],
        default: "`:`",
        help: "separator of an option's name and arguments, in URLs and presets",
        check: { setting, config throws(ServerConfigError) in
            let separator = config.signing.argumentsSeparator
            guard separator.isASCII, !separator.properties.isWhitespace, !"/%.@=".unicodeScalars.contains(separator) else {
                throw setting.error("the arguments separator '\(separator)' must be one ASCII character other than / % . @ = or a blank, e.g. : or ,")
            }
        }
    ) { setting, values, config throws(ServerConfigError) in
        let value = values.last ?? ""
        guard value.unicodeScalars.count == 1, let separator = value.unicodeScalars.first else {
            throw setting.invalid(value, "one character, e.g. : or ,")
        }
        config.signing.argumentsSeparator = separator
    }

    /// `--base64-url-includes-filename`: a base64 source in several segments ends with a file name segment, which is not part of it.
    public static let base64URLIncludesFilename = bool(
        "base64URLIncludesFilename", .signing, \.signing.base64URLIncludesFilename,
        flag: "base64-url-includes-filename",
        imgproxy: [same("IMGPROXY_BASE64_URL_INCLUDES_FILENAME")],
        help: "a base64 source in several segments ends with a file name segment, which is not part of it"
    )
}
