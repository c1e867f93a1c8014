import AsyncHTTPClient
import NIOCore
import NIOPosix
import WebImageLocking

/// The HTTP clients of hops pinned to an approved address (``DownloaderConfig/hopAddress``)
/// and of hops through a proxy (``DownloaderConfig/proxy``): one client per host, address and
/// proxy, kept so that later hops reuse its keep-alive connections.
///
/// Each client is the downloader's client configuration plus `dnsOverride = [host: address]`,
/// so it connects to that address for that host and never asks DNS, and plus the proxy its
/// hop goes through (its address as approved), so it tunnels to that address through that
/// proxy. A hop leases the client of the host, the address and the proxy approved for that
/// very hop; an approval of another address is another key, hence another client and new
/// connections. A connection is therefore only ever used for a hop whose approval named its
/// address. A proxied hop without an address to pin shares one client per proxy, whatever its
/// host. The TLS options of a request (invalid certificates allowed or not) need no key of
/// their own: AsyncHTTPClient keys each client's connections by the request's TLS configuration.
///
/// A client leaves the pool when it has had no lease for the idle lifetime, or when a new key
/// needs its place beyond the bound (the least recently used leaves). It is shut down once it
/// has left and its last lease has ended: never under a request, except by ``shutdown()``,
/// which shuts every client down at once.
final class PinnedClientPool: Sendable {
    /// What a pinned client is for: the URL's host (as AsyncHTTPClient reads it from the
    /// request's URL), the address approved for it (`nil`: resolved as usual), and the proxy
    /// the hop goes through, its host being the address it connects to.
    struct Key: Hashable, Sendable {
        var host: String
        var address: String?
        var proxy: DownloaderProxy.Endpoint?
    }

    /// One request's use of a pinned client; ``end()`` it once the response is read or dropped.
    struct Lease: Sendable {
        /// The client to send the request with.
        let client: HTTPClient
        fileprivate let key: Key
        fileprivate let pool: PinnedClientPool

        /// Gives the client back; a client that has left the pool shuts down when its last lease ends.
        func end() {
            pool.release(self)
        }
    }

    /// How many clients the pool holds and how many are not yet shut down, for tests.
    struct Counts: Sendable, Equatable {
        /// Clients in the pool (leased or idle).
        var pooled: Int
        /// Clients made and not yet shut down: the pooled ones, those that left the pool while
        /// leased, and those whose shutdown has not finished.
        var open: Int
    }

    private struct Slot {
        let client: HTTPClient
        var leases: Int
        /// The pool's tick at the latest lease: the smallest is the least recently used.
        var lastUsed: UInt64
        /// When the last lease ended; `nil` while leased.
        var idleSince: NIODeadline?
    }

    private struct State {
        var slots: [Key: Slot] = [:]
        /// Clients that left the pool while leased, with their leases, by identity.
        var retired: [ObjectIdentifier: (client: HTTPClient, leases: Int)] = [:]
        var tick: UInt64 = 0
        var open = 0
        /// The next sweep for idle clients, when one is due.
        var sweep: Scheduled<Void>?
        var isShutDown = false
    }

    private let configuration: HTTPClient.Configuration
    private let idleLifetime: TimeAmount
    private let maxClients: Int
    private let state = InlineLocked(State())

    /// A pool of clients made from `configuration`, each kept `idleLifetime` after its last
    /// request, at most `maxClients` (at least 1) at once.
    init(configuration: HTTPClient.Configuration, idleLifetime: Duration, maxClients: Int) {
        self.configuration = configuration
        self.idleLifetime = max(.zero, TimeAmount(idleLifetime))
        self.maxClients = max(1, maxClients)
    }

    /// Leases the client that connects to `address` for `host` (through `proxy`, when given),
    /// making it if the pool has none. Throws ``ImageError/cancelled`` once the pool is shut down.
    func lease(host: String, address: String?, proxy: DownloaderProxy.Endpoint? = nil) throws(ImageError) -> Lease {
        let key = Key(host: host, address: address, proxy: proxy)
        let (client, leftThePool) = state.withLock { state -> (HTTPClient?, HTTPClient?) in
            guard !state.isShutDown else { return (nil, nil) }
            state.tick += 1
            if var slot = state.slots[key] {
                slot.leases += 1
                slot.lastUsed = state.tick
                slot.idleSince = nil
                state.slots[key] = slot
                return (slot.client, nil)
            }
            let leftThePool = state.slots.count >= maxClients ? Self.removeLeastRecentlyUsed(from: &state) : nil
            var configuration = configuration
            if let address { configuration.dnsOverride = [host: address] }
            if let proxy {
                configuration.proxy = .server(
                    host: proxy.host, port: proxy.port,
                    authorization: proxy.credentials.map { .basic(username: $0.user, password: $0.password) }
                )
            }
            let client = HTTPClient(eventLoopGroup: MultiThreadedEventLoopGroup.singleton, configuration: configuration)
            state.slots[key] = Slot(client: client, leases: 1, lastUsed: state.tick, idleSince: nil)
            state.open += 1
            return (client, leftThePool)
        }
        if let leftThePool { shutDown(leftThePool) }
        guard let client else { throw .cancelled }
        return Lease(client: client, key: key, pool: self)
    }

    /// Removes the least recently used client from the pool; returns it when it is idle (to be
    /// shut down now), or keeps it among the retired until its last lease ends.
    private static func removeLeastRecentlyUsed(from state: inout State) -> HTTPClient? {
        guard let (key, slot) = state.slots.min(by: { $0.value.lastUsed < $1.value.lastUsed }) else { return nil }
        state.slots[key] = nil
        guard slot.leases > 0 else { return slot.client }
        state.retired[ObjectIdentifier(slot.client)] = (slot.client, slot.leases)
        return nil
    }

    private func release(_ lease: Lease) {
        let shutDownNow = state.withLock { state -> HTTPClient? in
            if var slot = state.slots[lease.key], slot.client === lease.client {
                slot.leases -= 1
                if slot.leases == 0 {
                    let now = NIODeadline.now()
                    slot.idleSince = now
                    if state.sweep == nil { scheduleSweep(at: now + idleLifetime, in: &state) }
                }
                state.slots[lease.key] = slot
                return nil
            }
            let id = ObjectIdentifier(lease.client)
            guard var retired = state.retired[id] else { return nil }  // shut down with the pool
            retired.leases -= 1
            guard retired.leases == 0 else {
                state.retired[id] = retired
                return nil
            }
            state.retired[id] = nil
            return retired.client
        }
        if let shutDownNow { shutDown(shutDownNow) }
    }

    private func scheduleSweep(at deadline: NIODeadline, in state: inout State) {
        state.sweep = MultiThreadedEventLoopGroup.singleton.any().scheduleTask(deadline: deadline) { [weak self] in
            self?.sweep()
        }
    }

    /// Takes the clients idle for the idle lifetime out of the pool and shuts them down; the
    /// next sweep is due when the longest-idle remaining client reaches the lifetime.
    private func sweep() {
        let expired = state.withLock { state -> [HTTPClient] in
            state.sweep = nil
            guard !state.isShutDown else { return [] }
            let now = NIODeadline.now()
            var expired: [HTTPClient] = []
            var nextDue: NIODeadline?
            for (key, slot) in state.slots {
                guard let idleSince = slot.idleSince else { continue }
                let due = idleSince + idleLifetime
                if due <= now {
                    expired.append(slot.client)
                    state.slots[key] = nil
                } else {
                    nextDue = min(nextDue ?? due, due)
                }
            }
            if let nextDue { scheduleSweep(at: nextDue, in: &state) }
            return expired
        }
        for client in expired { shutDown(client) }
    }

    /// Shuts `client` down without waiting (it has no lease).
    private func shutDown(_ client: HTTPClient) {
        client.shutdown { [weak self] _ in self?.clientDidShutDown() }
    }

    private func clientDidShutDown() {
        state.withLock { $0.open -= 1 }
    }

    /// Takes every client out of the pool (leased ones too) and refuses later leases.
    private func closeAll() -> [HTTPClient] {
        state.withLock { state in
            guard !state.isShutDown else { return [] }
            state.isShutDown = true
            state.sweep?.cancel()
            state.sweep = nil
            let clients = state.slots.values.map(\.client) + state.retired.values.map(\.client)
            state.slots.removeAll()
            state.retired.removeAll()
            return clients
        }
    }

    /// Shuts every client down, leased ones included (their requests fail), and waits for it.
    func shutdown() async {
        let clients = closeAll()
        await withTaskGroup(of: Void.self) { group in
            for client in clients {
                group.addTask {
                    try? await client.shutdown()
                    self.clientDidShutDown()
                }
            }
        }
    }

    /// Shuts every client down without waiting.
    func shutDownWithoutWaiting() {
        for client in closeAll() { shutDown(client) }
    }

    /// How many clients are pooled and open now.
    var counts: Counts {
        state.withLock { Counts(pooled: $0.slots.count, open: $0.open) }
    }
}
