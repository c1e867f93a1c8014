import Foundation
import WebImage

/// Every setting of `webimage serve`, in sections: one for each part of the server, with
/// its defaults, and the components it makes. Each setting is read through its
/// ``ServerSetting``: a flag, a `WEBIMAGE_*` environment variable and maybe `IMGPROXY_*`
/// ones; flags win over the environment. The defaults are WebImage's;
/// ``ServerProfile/imgproxy`` starts from imgproxy's instead (each setting's
/// ``ServerSetting/imgproxyDefault``).
///
///     var config = ServerConfig()
///     config.listen.port = 9000
///     config.sources.allowedSources = ["https://images.example.com/"]
///     config.encoding.defaultQuality = 75
public struct ServerConfig: Sendable {
    /// The defaults this configuration started from, and whose status codes are answered.
    public var profile = ServerProfile.webimage
    /// Where the server listens, which paths it answers, and its client connections.
    public var listen = Listen()
    /// How URLs are signed and read.
    public var signing = Signing()
    /// Which sources are fetched, and how.
    public var sources = Sources()
    /// The limits on sources, results and the work in flight.
    public var limits = Limits()
    /// How images are processed and encoded, and which formats are served.
    public var encoding = Encoding()
    /// The caches and the `Cache-Control` of images.
    public var caching = Caching()
    /// The header fields of responses, conditional requests and error bodies.
    public var responses = Responses()
    /// Metrics and logs.
    public var operations = Operations()

    /// The defaults.
    public init() {}
}
