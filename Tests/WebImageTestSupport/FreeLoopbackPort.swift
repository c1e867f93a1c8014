import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A port on 127.0.0.1 that was free a moment ago, below the kernel's ephemeral range
/// (32768 and up), for a server a test starts in another process: a port another test's
/// listener just gave back is never handed out here, so a test that checks that a closed
/// port stays closed finds nothing new on it.
package func freeLoopbackPort() throws -> Int {
    for _ in 0..<200 {
        let port = Int.random(in: 20_000..<32_000)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw FreePortError(description: "socket() failed: errno \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        close(fd)
        if bound == 0 { return port }
    }
    throw FreePortError(description: "no free port in 20000-31999 on 127.0.0.1")
}

/// No free loopback port could be found.
package struct FreePortError: Error, CustomStringConvertible {
    package let description: String
}
