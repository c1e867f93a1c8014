import Foundation
import WebImage

extension ServerConfig {
    /// How URLs are signed and read: keys, presets, the options URLs may use, encrypted sources.
    public struct Signing: Sendable {
        /// Hex signing keys, paired in order with ``salts``. Empty: URLs are not signed.
        public var keys: [String] = []
        /// Hex salts, one per key.
        public var salts: [String] = []
        /// Bytes of the HMAC kept in a signature (1…32). Default 32.
        public var signatureSize = 32
        /// Named option strings for `preset:<name>` (`thumb` → `rs:fill:300:300/q:70`); `default` applies to every URL.
        public var presets: [String: String] = [:]
        /// imgproxy's only-presets mode: the options segment of a URL is a `:`-separated list of
        /// preset names and nothing else. Default off.
        public var onlyPresets = false
        /// Hex AES key (16, 24 or 32 bytes) of `enc/` sources; `nil`: encrypted sources are refused.
        public var sourceURLEncryptionKey: String?
        /// Whether URLs may carry the security options (`max_src_resolution`, `max_src_file_size`,
        /// `max_animation_frames`, `max_animation_frame_resolution`, `max_result_dimension`). Default off.
        public var allowSecurityOptions = false
        /// What separates an option's name and arguments in URLs and presets (imgproxy's
        /// `IMGPROXY_ARGUMENTS_SEPARATOR`): one ASCII character. Default `:`.
        public var argumentsSeparator: Unicode.Scalar = ":"
        /// Whether a base64 source split over several segments ends with a file name segment
        /// that is not part of it (imgproxy's `IMGPROXY_BASE64_URL_INCLUDES_FILENAME`). Default off.
        public var base64URLIncludesFilename = false
        /// The only processing options URLs may use, by the name written in the URL (`w`, `h`,
        /// `rs`…; the long and the short name are different names), as imgproxy's
        /// `IMGPROXY_ALLOWED_PROCESSING_OPTIONS`. Presets may use any option. Empty: every option.
        public var allowedProcessingOptions: [String] = []
        /// Signature segments accepted without an HMAC check, as imgproxy's
        /// `IMGPROXY_TRUSTED_SIGNATURES`: for URLs signed elsewhere that must keep working.
        public var trustedSignatures: [String] = []

        /// The defaults.
        public init() {}
    }
}

extension ServerConfig.Signing {
    /// The signing key pairs, checked: as many salts as keys, all hex.
    public func signingKeys() throws(ServerConfigError) -> [SigningKey] {
        guard keys.count == salts.count else {
            throw ServerConfigError(
                "\(keys.count) signing key(s) but \(salts.count) salt(s): give one salt per key (\(ServerSetting.key.names); \(ServerSetting.salt.names))"
            )
        }
        var pairs: [SigningKey] = []
        for (index, (key, salt)) in zip(keys, salts).enumerated() {
            do {
                pairs.append(try SigningKey(hexKey: key, hexSalt: salt))
            } catch {
                throw ServerConfigError("key/salt pair \(index + 1): \(error.message) (\(ServerSetting.key.names); \(ServerSetting.salt.names))")
            }
        }
        return pairs
    }

    /// The key of `enc/` sources, or `nil` when none is configured.
    /// - Throws: ``ServerConfigError`` when the key is not 16, 24 or 32 bytes of hex.
    public func sourceCipher() throws(ServerConfigError) -> SourceURLCipher? {
        guard let sourceURLEncryptionKey, !sourceURLEncryptionKey.isEmpty else { return nil }
        do {
            return try SourceURLCipher(hexKey: sourceURLEncryptionKey)
        } catch {
            throw ServerSetting.sourceURLEncryptionKey.error(error.message)
        }
    }
}
