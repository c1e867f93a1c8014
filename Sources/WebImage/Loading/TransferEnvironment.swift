import AsyncHTTPClient
import NIOCore
import NIOSSL

/// What every transfer of an ``ImageDownloader`` works with: its HTTP client, the pool of
/// clients for pinned hops, the downloader's settings, its events and its cookies.
///
/// One immutable object, replaced as a whole when a setting changes, so that starting a
/// transfer takes one reference instead of copying the settings (a struct of some twenty
/// reference-counted fields).
final class TransferEnvironment: Sendable {
    let client: HTTPClient
    /// The clients of hops pinned to an address (``DownloaderConfig/hopAddress``), shared
    /// by every environment of the downloader.
    let pinnedClients: PinnedClientPool
    let config: DownloaderConfig
    let events: ImageEvents
    let cookies: CookieJar
    /// ``DownloaderConfig/totalTimeout`` as NIO counts time.
    let totalTimeout: TimeAmount
    /// The clients' TLS settings without certificate checks, for loads that allow invalid
    /// certificates: the client certificate of ``DownloaderConfig/tls`` is still presented.
    let unverifiedTLS: TLSConfiguration

    init(
        client: HTTPClient, pinnedClients: PinnedClientPool, config: DownloaderConfig,
        events: ImageEvents, cookies: CookieJar, unverifiedTLS: TLSConfiguration
    ) {
        self.client = client
        self.pinnedClients = pinnedClients
        self.config = config
        self.events = events
        self.cookies = cookies
        self.totalTimeout = TimeAmount(config.totalTimeout)
        self.unverifiedTLS = unverifiedTLS
    }

    /// The same environment with `change` made to the settings.
    func changingConfig(_ change: (inout DownloaderConfig) -> Void) -> TransferEnvironment {
        var config = self.config
        change(&config)
        return TransferEnvironment(
            client: client, pinnedClients: pinnedClients, config: config, events: events, cookies: cookies,
            unverifiedTLS: unverifiedTLS
        )
    }
}
