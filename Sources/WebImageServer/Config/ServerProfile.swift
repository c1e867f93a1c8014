import WebImage

/// Which defaults `webimage serve` starts from, and whose status codes it answers with.
///
/// - ``webimage``: WebImage's own defaults, chosen for a proxy that fetches any URL:
///   listening on 127.0.0.1 only, private source addresses refused, WebP and AVIF
///   negotiated, animations up to 100 frames, results up to 8192 pixels a side, and the
///   status codes of ``ProxyError/status`` (400 for a malformed URL, 502 for a source's error).
/// - ``imgproxy``: imgproxy's defaults and status codes, so that a deployment configured
///   for imgproxy behaves as it did: listening on every interface, private addresses
///   allowed, no format negotiation, one frame of an animation, no result bound,
///   `keep_copyright` on, WebP quality 79, AVIF 63 and JPEG XL 77, AVIF at speed 8 (effort 1),
///   5 s downloads and 10 s requests, no cap on the connections of one client address, S3
///   requests signed for `us-west-1` when no region is given, and
///   the statuses of ``ProxyError/imgproxyStatus``.
///
/// `webimage serve` uses ``imgproxy`` when any `IMGPROXY_*` variable is set or
/// `--imgproxy-defaults` is given (``chosen(environment:imgproxyDefaults:)``). Settings given
/// explicitly win over either profile's defaults.
public enum ServerProfile: String, Sendable, Hashable, CaseIterable {
    /// WebImage's own defaults.
    case webimage
    /// imgproxy's defaults and status codes.
    case imgproxy

    /// The profile for a process: `imgproxyDefaults` when given (the flag or
    /// `WEBIMAGE_IMGPROXY_DEFAULTS`), else ``imgproxy`` when any `IMGPROXY_*` variable is set
    /// to a value, else ``webimage``.
    public static func chosen(environment: [String: String], imgproxyDefaults: Bool?) -> ServerProfile {
        if let imgproxyDefaults { return imgproxyDefaults ? .imgproxy : .webimage }
        let imgproxyVariableSet = environment.contains { name, value in
            name.hasPrefix("IMGPROXY_") && !value.trimmingCharacters(in: .whitespaces).isEmpty
        }
        return imgproxyVariableSet ? .imgproxy : .webimage
    }

    /// The settings before any variable or flag is applied: WebImage's defaults, with
    /// each setting's ``ServerSetting/imgproxyDefault`` under ``imgproxy``.
    public var defaults: ServerConfig {
        var config = ServerConfig()
        config.profile = self
        guard self == .imgproxy else { return config }
        for setting in ServerSetting.allCases {
            guard let values = setting.imgproxyDefault else { continue }
            do {
                try setting.apply(values, to: &config)
            } catch {
                // The catalog's own texts: a test reads every one of them.
                preconditionFailure("imgproxy's default of \(setting) cannot be read: \(error.message)")
            }
        }
        return config
    }

    /// The region imgproxy signs S3 requests for when neither `IMGPROXY_S3_REGION` nor the
    /// AWS variables name one.
    public static let imgproxyS3Region = "us-west-1"

    /// imgproxy's "no limit" on a result's sides: libvips' own bound on an image's side.
    public static let unboundedResultDimension = 10_000_000

    /// The start-up log line naming the profile and why it is in effect; `host`: the
    /// address the server listens on, which the profile's default need not be (`--bind`, `PORT`).
    public func startupLine(imgproxyDefaults: Bool?, host: String) -> String {
        switch (self, imgproxyDefaults) {
        case (.imgproxy, .some):
            "settings: imgproxy's defaults and status codes (--imgproxy-defaults)"
        case (.imgproxy, nil):
            "settings: imgproxy's defaults and status codes (IMGPROXY_* variables are set; --no-imgproxy-defaults keeps WebImage's)"
        case (.webimage, _):
            "settings: WebImage's defaults (bound to \(host), private sources refused; --imgproxy-defaults or any IMGPROXY_* variable gives imgproxy's)"
        }
    }
}
