import NIOPosix
import WebImage

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Resolves host names with `getaddrinfo` on a thread pool of its own, so that a slow DNS
/// server never holds an event loop or a thread of the Swift cooperative pool.
enum HostResolver {
    /// Blocking lookups; a few threads, since lookups mostly wait.
    static let pool: NIOThreadPool = {
        let pool = NIOThreadPool(numberOfThreads: 4)
        pool.start()
        return pool
    }()

    /// Answers kept for five seconds, so that a busy source costs one lookup every few
    /// seconds rather than one a fetch.
    static let answers = HostAnswerCache(lifetime: .seconds(5), maxHosts: 1024) { host throws(ImageError) in
        try await lookUp(host)
    }

    /// Every address `host` resolves to (IPv4 and IPv6): a kept answer while it is fresh
    /// (``answers``), else a new lookup.
    static func resolve(_ host: String) async throws(ImageError) -> [IPAddress] {
        try await answers.resolve(host)
    }

    /// A new lookup of `host` on the resolver's threads.
    static func lookUp(_ host: String) async throws(ImageError) -> [IPAddress] {
        let result: Result<[IPAddress], ImageError> = await withCheckedContinuation { continuation in
            pool.submit { state in
                guard case .active = state else {
                    continuation.resume(returning: .failure(.network("the resolver has been shut down")))
                    return
                }
                continuation.resume(returning: lookup(host))
            }
        }
        return try result.get()
    }

    private static func lookup(_ host: String) -> Result<[IPAddress], ImageError> {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if canImport(Glibc)
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #else
        hints.ai_socktype = SOCK_STREAM
        #endif
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, nil, &hints, &list)
        guard status == 0, let list else {
            return .failure(.network("cannot resolve host '\(host)': \(String(cString: gai_strerror(status)))"))
        }
        defer { freeaddrinfo(list) }
        var addresses: [IPAddress] = []
        var node: UnsafeMutablePointer<addrinfo>? = list
        while let current = node {
            if let sockaddr = current.pointee.ai_addr {
                switch Int32(sockaddr.pointee.sa_family) {
                case AF_INET:
                    let bytes = sockaddr.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { pointer in
                        withUnsafeBytes(of: pointer.pointee.sin_addr) { Array($0) }
                    }
                    if let address = IPAddress(bytes: bytes) { addresses.append(address) }
                case AF_INET6:
                    let bytes = sockaddr.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { pointer in
                        withUnsafeBytes(of: pointer.pointee.sin6_addr) { Array($0) }
                    }
                    if let address = IPAddress(bytes: bytes) { addresses.append(address) }
                default:
                    break
                }
            }
            node = current.pointee.ai_next
        }
        guard !addresses.isEmpty else { return .failure(.network("host '\(host)' has no IPv4 or IPv6 address")) }
        return .success(addresses)
    }
}
