import NIOCore
import NIOPosix
import WebImage

/// Resolves host names for the source guard without holding a thread while it waits
/// (``StubResolver``), within a deadline, the server's download timeout, whatever the name
/// servers do. Answers are kept a few seconds and failures a little less
/// (``HostAnswerCache``), and one lookup per name is in flight: a name whose servers never
/// answer costs one wait every few seconds, and delays no other name.
final class HostResolver: Sendable {
    /// The lookups.
    let stub: StubResolver
    private let answers: HostAnswerCache

    /// The resolver used when none is given: the system's settings, lookups bounded by 10 s.
    static let system = HostResolver(timeout: .seconds(10))

    /// A resolver with `configuration` and `hosts` (the system's by default) whose lookups
    /// end within `timeout`.
    init(
        configuration: ResolverConfiguration = .system(), hosts: HostsFile = HostsFile(), timeout: Duration,
        answerLifetime: Duration = .seconds(5), failureLifetime: Duration = .seconds(3),
        group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) {
        let stub = StubResolver(configuration: configuration, hosts: hosts, timeout: timeout, group: group)
        self.stub = stub
        answers = HostAnswerCache(lifetime: answerLifetime, failureLifetime: failureLifetime, maxHosts: 1024) { host throws(ImageError) in
            try await stub.lookUp(host)
        }
    }

    /// Every address `host` resolves to, IPv4 first: a kept answer while it is fresh, the
    /// lookup in flight for it, or a new lookup.
    func resolve(_ host: String) async throws(ImageError) -> [IPAddress] {
        try await answers.resolve(host.lowercased())
    }
}
