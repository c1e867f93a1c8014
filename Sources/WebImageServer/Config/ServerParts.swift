import Foundation
import WebImage

/// The components a ``ProxyServer`` is built from that a configuration can fail to make,
/// each made once by ``ServerConfig/makeParts()``: the URL parser (signing keys, the source
/// cipher and the presets), the `local://` loader, the downloader's settings and the GCS settings.
struct ServerParts: Sendable {
    /// Parses proxy paths with the signing settings.
    let parser: ProxyURLParser
    /// Serves `local://` sources; nil without a local root.
    let localFiles: RootedFileLoader?
    /// The downloader's settings, before the source guard's hooks are added.
    let downloaderConfig: DownloaderConfig
    /// Where `gs://` sources come from and how they are authenticated; nil when they are off.
    let gcs: GCSConfiguration?
}

extension ServerConfig {
    /// Checks every setting and makes the server's parts, in this order: each setting's own
    /// value (``ServerSetting/bounds`` and its own check), the settings read together, then
    /// the URL parser (keys, salts, the source key, presets), the local root, the
    /// downloader's settings and the GCS settings. The first problem is thrown.
    /// - Throws: ``ServerConfigError`` naming the setting and what to change.
    func makeParts() throws(ServerConfigError) -> ServerParts {
        for setting in ServerSetting.allCases {
            try setting.check(self)
        }
        if signing.onlyPresets, signing.presets.isEmpty {
            throw ServerSetting.preset.error("only-presets mode needs at least one preset")
        }
        if sources.useS3, let s3Endpoint = sources.s3Endpoint, !s3Endpoint.isEmpty {
            let lowered = s3Endpoint.lowercased()
            let text = lowered.hasPrefix("http://") || lowered.hasPrefix("https://") ? s3Endpoint : "http://" + s3Endpoint
            guard let url = URL(string: text), url.host?.isEmpty == false else {
                throw ServerSetting.s3Endpoint.error("the S3 endpoint '\(s3Endpoint)' is not a URL with a host, e.g. http://127.0.0.1:9000")
            }
        }
        let parser = try urlParser()
        do {
            try parser.validatePresets()
        } catch {
            throw ServerSetting.preset.error("preset: \(error.message)")
        }
        return ServerParts(
            parser: parser,
            localFiles: try sources.localFiles(maxFileSize: limits.maxSourceBytes),
            downloaderConfig: try sources.downloaderConfig(maxBodySize: limits.maxSourceBytes),
            gcs: try sources.gcsConfiguration()
        )
    }
}
