#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An IPv4 or IPv6 address as raw bytes, with the classification the source guard needs.
struct IPAddress: Sendable, Hashable, CustomStringConvertible {
    /// 4 bytes (IPv4) or 16 bytes (IPv6), network order.
    let bytes: [UInt8]

    init?(bytes: [UInt8]) {
        guard bytes.count == 4 || bytes.count == 16 else { return nil }
        self.bytes = bytes
    }

    /// Parses a numeric host the way the C library's resolver does, so that every spelling
    /// a connection would accept is recognised: dotted IPv4 with decimal, octal (`0177.0.0.1`)
    /// or hex (`0x7f.1`) parts, a single 32-bit number (`2130706433`), or IPv6 (brackets allowed).
    init?(parsing text: String) {
        var host = text
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        // A zone index (fe80::1%eth0) does not change what the address is.
        if let percent = host.firstIndex(of: "%") { host = String(host[..<percent]) }
        var v6 = in6_addr()
        if host.contains(":"), inet_pton(AF_INET6, host, &v6) == 1 {
            self.bytes = withUnsafeBytes(of: &v6) { Array($0) }
            return
        }
        var v4 = in_addr()
        // inet_aton accepts the legacy forms (octal, hex, fewer than four parts) that
        // getaddrinfo and therefore an HTTP client would connect to.
        guard !host.isEmpty, inet_aton(host, &v4) != 0 else { return nil }
        self.bytes = withUnsafeBytes(of: &v4) { Array($0) }
    }

    var isIPv4: Bool { bytes.count == 4 }

    /// The address in its canonical text form (`127.0.0.1`, `::1`).
    var description: String {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let family = isIPv4 ? AF_INET : AF_INET6
        let ok = bytes.withUnsafeBytes { raw in inet_ntop(family, raw.baseAddress, &buffer, socklen_t(buffer.count)) != nil }
        guard ok else { return "?" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The IPv4 address an IPv6 address carries: IPv4-mapped (`::ffff:a.b.c.d`),
    /// IPv4-compatible (`::a.b.c.d`), NAT64 (`64:ff9b::a.b.c.d`); `nil` otherwise.
    var embeddedIPv4: IPAddress? {
        guard !isIPv4 else { return nil }
        let prefix = bytes[0..<12]
        let mapped = prefix.elementsEqual([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF])
        let compatible = prefix.allSatisfy { $0 == 0 } && !(bytes[12] == 0 && bytes[13] == 0 && bytes[14] == 0 && bytes[15] <= 1)
        let nat64 = prefix.elementsEqual([0x00, 0x64, 0xFF, 0x9B, 0, 0, 0, 0, 0, 0, 0, 0])
        guard mapped || compatible || nat64 else { return nil }
        return IPAddress(bytes: Array(bytes[12..<16]))
    }

    /// What kind of address this is, for the source guard's policy.
    var category: IPCategory {
        if let embedded = embeddedIPv4 { return embedded.category }
        return isIPv4 ? Self.categoryV4(bytes) : Self.categoryV6(bytes)
    }

    private static func categoryV4(_ b: [UInt8]) -> IPCategory {
        switch (b[0], b[1]) {
        case (127, _): return .loopback
        case (10, _), (172, 16...31), (192, 168): return .privateNetwork
        case (169, 254): return .linkLocal
        case (100, 64...127): return .sharedCGNAT
        case (0, _): return .unspecified
        case (224...239, _): return .multicast
        case (240...255, _): return .reserved
        case (192, 0) where b[2] == 0: return .reserved  // IETF protocol assignments
        case (198, 18...19): return .reserved  // benchmarking
        default: return .global
        }
    }

    private static func categoryV6(_ b: [UInt8]) -> IPCategory {
        if b.allSatisfy({ $0 == 0 }) { return .unspecified }
        if b[0..<15].allSatisfy({ $0 == 0 }) && b[15] == 1 { return .loopback }
        if b[0] & 0xFE == 0xFC { return .privateNetwork }  // fc00::/7 unique local
        if b[0] == 0xFE && b[1] & 0xC0 == 0x80 { return .linkLocal }  // fe80::/10
        if b[0] == 0xFE && b[1] & 0xC0 == 0xC0 { return .privateNetwork }  // fec0::/10 deprecated site-local
        if b[0] == 0xFF { return .multicast }
        return .global
    }
}

/// The kinds of address the source guard tells apart.
enum IPCategory: String, Sendable {
    /// A public address.
    case global
    /// 127.0.0.0/8, ::1.
    case loopback
    /// 10/8, 172.16/12, 192.168/16, fc00::/7, fec0::/10.
    case privateNetwork = "private"
    /// 169.254/16, fe80::/10.
    case linkLocal = "link-local"
    /// 100.64/10 (carrier-grade NAT).
    case sharedCGNAT = "carrier-grade NAT"
    /// 0.0.0.0/8, ::.
    case unspecified
    /// 224/4, ff00::/8.
    case multicast
    /// 240/4, 192.0.0/24, 198.18/15 and other special-purpose ranges.
    case reserved
}
