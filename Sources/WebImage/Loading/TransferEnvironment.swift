import AsyncHTTPClient
import NIOCore

/// What every transfer of an ``ImageDownloader`` works with: its HTTP client, the client's
/// configuration, the downloader's settings, its events and its cookies.
///
/// One immutable object, replaced as a whole when a setting changes, so that starting a
/// transfer takes one reference instead of copying the settings and the client
/// configuration (two structs of some twenty reference-counted fields each).
final class TransferEnvironment: Sendable {
    let client: HTTPClient
    /// The configuration of `client`, from which a hop pinned to an address
    /// (``DownloaderConfig/hopAddress``) makes a client of its own.
    let clientConfiguration: HTTPClient.Configuration
    let config: DownloaderConfig
    let events: ImageEvents
    let cookies: CookieJar
    /// ``DownloaderConfig/totalTimeout`` as NIO counts time.
    let totalTimeout: TimeAmount

    init(
        client: HTTPClient, clientConfiguration: HTTPClient.Configuration, config: DownloaderConfig,
        events: ImageEvents, cookies: CookieJar
    ) {
        self.client = client
        self.clientConfiguration = clientConfiguration
        self.config = config
        self.events = events
        self.cookies = cookies
        self.totalTimeout = TimeAmount(config.totalTimeout)
    }

    /// The same environment with `change` made to the settings.
    func changingConfig(_ change: (inout DownloaderConfig) -> Void) -> TransferEnvironment {
        var config = self.config
        change(&config)
        return TransferEnvironment(
            client: client, clientConfiguration: clientConfiguration, config: config, events: events, cookies: cookies
        )
    }
}
