import Foundation
import NIOCore

/// What `/etc/resolv.conf` tells a stub resolver, read as glibc reads it: the name servers
/// (at most three, in order), the search list, and the `ndots`, `timeout`, `attempts` and
/// `rotate` options.
struct ResolverConfiguration: Sendable, Equatable {
    /// The name servers asked, in order; port 53 unless a test says otherwise.
    var nameservers: [SocketAddress]
    /// Domains tried after a name with fewer than ``ndots`` dots (and after it, for others).
    var searchDomains: [String] = []
    /// Names with at least this many dots are tried as they are first. Default 1.
    var ndots = 1
    /// How long one attempt waits for a server. Default 5 s.
    var attemptTimeout: Duration = .seconds(5)
    /// Rounds over the servers. Default 2.
    var attempts = 2
    /// Whether each lookup starts at the next server rather than the first.
    var rotate = false

    /// glibc's choice when the file names no server: the local one.
    static let localServer = try! SocketAddress(ipAddress: "127.0.0.1", port: 53)

    /// The file's settings; a file that cannot be read gives glibc's defaults.
    static func system(path: String = "/etc/resolv.conf") -> ResolverConfiguration {
        parse((try? String(contentsOfFile: path, encoding: .utf8)) ?? "")
    }

    /// Reads the text of a `resolv.conf`.
    static func parse(_ text: String) -> ResolverConfiguration {
        var configuration = ResolverConfiguration(nameservers: [])
        var search: [String]?
        for rawLine in text.split(whereSeparator: \.isNewline) {
            let line = rawLine.prefix { $0 != "#" && $0 != ";" }
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
            guard let keyword = fields.first else { continue }
            switch keyword {
            case "nameserver":
                // An IPv6 server may carry a zone (fe80::1%eth0), which NIO cannot address.
                guard fields.count > 1, configuration.nameservers.count < 3,
                      let address = try? SocketAddress(ipAddress: fields[1], port: 53) else { continue }
                configuration.nameservers.append(address)
            case "search":
                search = Array(fields.dropFirst())
            case "domain":
                // The last of `domain` and `search` wins, as in glibc.
                search = fields.count > 1 ? [fields[1]] : []
            case "options":
                for option in fields.dropFirst() {
                    let parts = option.split(separator: ":", maxSplits: 1)
                    let value = parts.count == 2 ? Int(parts[1]) : nil
                    switch parts[0] {
                    case "ndots": if let value { configuration.ndots = min(max(value, 0), 15) }
                    case "timeout": if let value { configuration.attemptTimeout = .seconds(min(max(value, 1), 30)) }
                    case "attempts": if let value { configuration.attempts = min(max(value, 1), 5) }
                    case "rotate": configuration.rotate = true
                    default: break
                    }
                }
            default:
                continue
            }
        }
        configuration.searchDomains = (search ?? []).map { $0.hasSuffix(".") ? String($0.dropLast()) : $0 }
            .filter { DNSMessage.isValidName($0) }
        if configuration.nameservers.isEmpty { configuration.nameservers = [localServer] }
        return configuration
    }

    /// The names a lookup of `host` asks for, in order: as it is first when it has at
    /// least ``ndots`` dots, then with each search domain, then as it is when it has fewer.
    /// A name ending with a dot is asked for as it is only.
    func candidates(for host: String) -> [String] {
        if host.hasSuffix(".") { return [String(host.dropLast())] }
        let dots = host.utf8.count { $0 == UInt8(ascii: ".") }
        let searched = searchDomains.map { host + "." + $0 }.filter { DNSMessage.isValidName($0) }
        return dots >= ndots ? [host] + searched : searched + [host]
    }
}
