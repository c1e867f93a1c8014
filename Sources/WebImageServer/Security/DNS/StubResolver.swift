import NIOCore
import NIOPosix
import WebImage
import WebImageLocking

/// A stub resolver that reads `/etc/hosts` and `/etc/resolv.conf` as glibc does (the hosts
/// file first, then the name servers in order, with the search list, `ndots`, `timeout`,
/// `attempts` and `rotate`), and asks for `A` and `AAAA` records at once over UDP on the
/// event loops (TCP for a truncated answer): no thread waits for an answer.
final class StubResolver: Sendable {
    /// The servers and search rules.
    let configuration: ResolverConfiguration
    /// The names answered before any server is asked.
    let hosts: HostsFile
    /// The longest a lookup may take, every name of the search list and every server
    /// included.
    let timeout: Duration
    private let group: any EventLoopGroup
    private let rotation = InlineLocked(0)

    init(configuration: ResolverConfiguration, hosts: HostsFile, timeout: Duration, group: any EventLoopGroup) {
        self.configuration = configuration
        self.hosts = hosts
        self.timeout = timeout
        self.group = group
    }

    /// A new lookup of `host`, the hosts file first.
    func lookUp(_ host: String) async throws(ImageError) -> [IPAddress] {
        let name = host.lowercased()
        if name == "localhost" || name.hasSuffix(".localhost") {
            // RFC 6761: such names are the machine's own, whatever a server says.
            return [IPAddress(parsing: "127.0.0.1")!, IPAddress(parsing: "::1")!]
        }
        if let addresses = hosts.addresses(of: name.hasSuffix(".") ? String(name.dropLast()) : name) { return addresses }
        let deadline = NIODeadline.now() + TimeAmount(timeout)
        var unanswered = false
        for var candidate in configuration.candidates(for: name) where DNSMessage.isValidName(candidate) {
            // An alias whose target the server did not resolve is asked for in turn.
            for _ in 0..<8 {
                switch await query(candidate, deadline: deadline) {
                case .addresses(let addresses): return addresses
                case .alias(let target) where DNSMessage.isValidName(target): candidate = target
                case .alias, .noSuchName: break
                case .unanswered: unanswered = true
                }
                break
            }
            if NIODeadline.now() >= deadline { break }
        }
        guard DNSMessage.isValidName(name.hasSuffix(".") ? String(name.dropLast()) : name) else {
            throw .network("cannot resolve host '\(host.prefix(100))': it is not a valid host name")
        }
        if unanswered {
            throw .timedOut("looking up host '\(host)' failed: the name servers did not answer within \(timeout)")
        }
        throw .network("cannot resolve host '\(host)': no such host")
    }

    private enum Outcome {
        case addresses([IPAddress])
        case alias(String)
        case noSuchName
        case unanswered
    }

    /// `A` and `AAAA` of one name, server after server, attempt after attempt, until one
    /// answers for certain or the deadline passes.
    private func query(_ name: String, deadline: NIODeadline) async -> Outcome {
        let servers = configuration.nameservers
        let first = configuration.rotate ? rotation.withLock { index -> Int in
            defer { index = (index + 1) % servers.count }
            return index
        } : 0
        for _ in 0..<configuration.attempts {
            for offset in servers.indices {
                let now = NIODeadline.now()
                guard now < deadline else { return .unanswered }
                let server = servers[(first + offset) % servers.count]
                let attemptEnd = min(deadline, now + TimeAmount(configuration.attemptTimeout))
                let responses = await DNSTransport.ask(name, types: [.a, .aaaa], server: server, deadline: attemptEnd, group: group)
                let addresses = (responses[.a]?.addresses ?? []) + (responses[.aaaa]?.addresses ?? [])
                if !addresses.isEmpty { return .addresses(addresses) }
                // No such name is the zone's own answer: no other server would say otherwise.
                if responses.values.contains(where: { $0.code == 3 }) { return .noSuchName }
                if responses.count == 2, responses.values.allSatisfy({ $0.code == 0 }) {
                    if let target = responses.values.compactMap(\.canonicalName).first { return .alias(target) }
                    return .noSuchName
                }
                // A server failure, a refusal or no answer: the next server.
            }
        }
        return .unanswered
    }
}
