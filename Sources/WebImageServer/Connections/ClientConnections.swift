import NIOCore
import Synchronization
import WebImageLocking

/// The client connections open, counted by the address they come from, against a cap per
/// address: one peer cannot take every connection the server allows.
///
/// An IPv6 client is counted by its /64 prefix, since one host usually holds a whole /64;
/// an IPv4-mapped IPv6 address counts as the IPv4 address it carries. The cap on all
/// connections together is the listening socket's (``ClientLimitedHTTP1Channel``).
final class ClientConnections: Sendable {
    /// Connections one address may have open at once; `nil`: no cap per address.
    let perAddressLimit: Int?
    private let open = InlineLocked<[ClientAddressKey: Int]>([:])
    private let firstConnectionSeen = Atomic<Bool>(false)

    /// A count with room for `perAddressLimit` connections from each address.
    init(perAddressLimit: Int?) {
        self.perAddressLimit = perAddressLimit
    }

    /// Counts a new connection from `address` when its address has room; `nil` (and nothing
    /// counted) when it has ``perAddressLimit`` open already. The key returned is given
    /// back to ``release(_:)`` when the connection closes.
    func admit(_ address: SocketAddress?) -> ClientAddressKey? {
        let key = ClientAddressKey(address)
        guard let perAddressLimit else { return key }
        let admitted = open.withLock { open -> Bool in
            let count = open[key, default: 0]
            guard count < perAddressLimit else { return false }
            open[key] = count + 1
            return true
        }
        return admitted ? key : nil
    }

    /// Uncounts a connection admitted under `key` that closed.
    func release(_ key: ClientAddressKey) {
        guard perAddressLimit != nil else { return }
        open.withLock { open in
            guard let count = open[key] else { return }
            if count <= 1 { open[key] = nil } else { open[key] = count - 1 }
        }
    }

    /// `true` for the first connection the server sets up, `false` for every later one.
    func isFirstConnection() -> Bool {
        !firstConnectionSeen.exchange(true, ordering: .relaxed)
    }

    /// Connections open from the address `address` is counted under.
    func count(from address: SocketAddress?) -> Int {
        open.withLock { $0[ClientAddressKey(address), default: 0] }
    }
}

/// What a client's connections are counted under: its IPv4 address, or its IPv6 address's
/// first 64 bits.
struct ClientAddressKey: Hashable, Sendable {
    private let family: UInt8
    private let bits: UInt64

    init(_ address: SocketAddress?) {
        switch address {
        case .v4(let v4):
            self.init(ipv4: UInt32(bigEndian: v4.address.sin_addr.s_addr))
        case .v6(let v6):
            let bytes = withUnsafeBytes(of: v6.address.sin6_addr) { Array($0) }
            // ::ffff:a.b.c.d is the IPv4 client a.b.c.d.
            if bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xFF, bytes[11] == 0xFF {
                self.init(ipv4: bytes[12...].reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
            } else {
                self.init(family: 6, bits: bytes[0..<8].reduce(UInt64(0)) { $0 << 8 | UInt64($1) })
            }
        default:
            // A Unix socket's clients are one peer.
            self.init(family: 0, bits: 0)
        }
    }

    private init(ipv4: UInt32) {
        self.init(family: 4, bits: UInt64(ipv4))
    }

    private init(family: UInt8, bits: UInt64) {
        self.family = family
        self.bits = bits
    }
}
