import Foundation
import WebImage

extension ServerConfig {
    /// Checks every setting; the message names the setting, where it is given, and what to change.
    ///
    /// Each setting checks its own value first (``ServerSetting/bounds`` and its own check);
    /// then come the checks of settings read together, and the components the settings make.
    public func validate() throws(ServerConfigError) {
        for setting in ServerSetting.allCases {
            try setting.check(self)
        }
        _ = try signingKeys()
        let parser = ProxyURLParser(
            keys: [], signatureSize: signatureSize, presets: presets, maxDimension: maxResultDimension,
            allowSecurityOptions: allowSecurityOptions, argumentsSeparator: argumentsSeparator
        )
        do {
            try parser.validatePresets()
        } catch {
            throw ServerSetting.preset.error("preset: \(error.message)")
        }
        if onlyPresets, presets.isEmpty {
            throw ServerSetting.preset.error("only-presets mode needs at least one preset")
        }
        _ = try localFiles()
        _ = try sourceCipher()
        if useS3, let s3Endpoint, !s3Endpoint.isEmpty {
            let lowered = s3Endpoint.lowercased()
            let text = lowered.hasPrefix("http://") || lowered.hasPrefix("https://") ? s3Endpoint : "http://" + s3Endpoint
            guard let url = URL(string: text), url.host?.isEmpty == false else {
                throw ServerSetting.s3Endpoint.error("the S3 endpoint '\(s3Endpoint)' is not a URL with a host, e.g. http://127.0.0.1:9000")
            }
        }
        _ = try sourceProxy()
        _ = try sourceTLS()
    }
}
