import Foundation
import Testing
import WebImage
@testable import WebImageServer
import WebImageLocking

@Suite("Host answer cache")
struct HostAnswerCacheTests {
    /// A lookup that counts its calls per host and answers from a table (a missing host fails).
    final class CountingLookUp: Sendable {
        let table: InlineLocked<[String: [IPAddress]]>
        let calls = InlineLocked<[String: Int]>([:])

        init(_ table: [String: [IPAddress]]) { self.table = InlineLocked(table) }

        func lookUp(_ host: String) throws(ImageError) -> [IPAddress] {
            calls.withLock { $0[host, default: 0] += 1 }
            guard let addresses = table.withLock({ $0[host] }) else { throw .network("cannot resolve host '\(host)'") }
            return addresses
        }

        func count(_ host: String) -> Int { calls.withLock { $0[host] ?? 0 } }
    }

    private static func address(_ text: String) -> IPAddress { IPAddress(parsing: text)! }

    private static func cache(_ lookUp: CountingLookUp, lifetime: Duration = .seconds(60), maxHosts: Int = 16) -> HostAnswerCache {
        HostAnswerCache(lifetime: lifetime, maxHosts: maxHosts) { host throws(ImageError) in try lookUp.lookUp(host) }
    }

    @Test("200 resolutions of one host within the lifetime make one lookup")
    func sharesOneLookup() async throws {
        let lookUp = CountingLookUp(["images.example": [Self.address("93.184.216.34")]])
        let cache = Self.cache(lookUp)
        for _ in 0..<200 {
            #expect(try await cache.resolve("images.example") == [Self.address("93.184.216.34")])
        }
        #expect(lookUp.count("images.example") == 1)
    }

    @Test("an expired answer is looked up again, and the new answer is the one returned")
    func expiredAnswerIsLookedUpAgain() async throws {
        let lookUp = CountingLookUp(["rebind.example": [Self.address("93.184.216.34")]])
        let cache = Self.cache(lookUp, lifetime: .milliseconds(50))
        #expect(try await cache.resolve("rebind.example") == [Self.address("93.184.216.34")])
        lookUp.table.withLock { $0["rebind.example"] = [Self.address("127.0.0.1")] }
        try await Task.sleep(for: .milliseconds(120))
        #expect(try await cache.resolve("rebind.example") == [Self.address("127.0.0.1")])
        #expect(lookUp.count("rebind.example") == 2)
    }

    @Test("a failed lookup is kept for its own lifetime; with none, it is asked again")
    func failuresAreKeptBriefly() async throws {
        for (lifetime, lookUps) in [(Duration.seconds(3600), 1), (.zero, 2)] {
            let lookUp = CountingLookUp([:])
            let cache = HostAnswerCache(lifetime: .seconds(3600), failureLifetime: lifetime, maxHosts: 16) { host throws(ImageError) in
                try lookUp.lookUp(host)
            }
            await #expect(throws: ImageError.self) { try await cache.resolve("missing.example") }
            await #expect(throws: ImageError.self) { try await cache.resolve("missing.example") }
            #expect(lookUp.count("missing.example") == lookUps)
        }
    }

    @Test("the cache keeps at most maxHosts answers")
    func bounded() async throws {
        let hosts = (0..<40).map { "host\($0).example" }
        let lookUp = CountingLookUp(Dictionary(uniqueKeysWithValues: hosts.map { ($0, [Self.address("93.184.216.34")]) }))
        let cache = Self.cache(lookUp, maxHosts: 8)
        for host in hosts { _ = try await cache.resolve(host) }
        #expect(cache.count <= 8)
        #expect(cache.count >= 1)
    }
}
