import Foundation
import NIOCore
import Testing
import WebImage
@testable import WebImageServer
import WebImageLocking
import WebImageTestSupport

/// The stub resolver against a name server of the test's own on 127.0.0.1: what it asks,
/// what it shares and keeps, and that a server that never answers delays only its names.
@Suite("Host resolver")
struct HostResolverTests {
    static func resolver(
        _ server: TestNameServer, hosts: String = "", timeout: Duration = .seconds(60), search: [String] = []
    ) -> HostResolver {
        var configuration = ResolverConfiguration(nameservers: [server.address])
        configuration.searchDomains = search
        configuration.attempts = 1
        configuration.attemptTimeout = timeout
        // Answers and failures kept longer than any test takes: what is counted is the queries.
        return HostResolver(
            configuration: configuration, hosts: HostsFile(text: hosts), timeout: timeout,
            answerLifetime: .seconds(3600), failureLifetime: .seconds(3600)
        )
    }

    static let local: [UInt8] = [127, 0, 0, 1]

    @Test("HP3 a name server that never answers delays only the names it leaves unanswered: others, and the hosts file's, resolve meanwhile")
    func silentServerDelaysOnlyItsNames() async throws {
        let server = try await TestNameServer.start(["ok.test": .address(Self.local)], fallback: .silent)
        defer { Task { await server.stop() } }
        let resolver = Self.resolver(server, hosts: "127.0.0.1 files.test\n", timeout: .seconds(120))
        let finished = Locked(0)
        // 50 names the server reads and never answers; their lookups end only at the deadline.
        for index in 0..<50 {
            Task {
                _ = try? await resolver.resolve("slow\(index).test")
                finished.withLock { $0 += 1 }
            }
        }
        #expect(await eventually(timeout: .seconds(120)) { (0..<50).allSatisfy { server.queries(for: "slow\($0).test") >= 2 } })
        #expect(try await resolver.resolve("ok.test") == [IPAddress(parsing: "127.0.0.1")!])
        #expect(try await resolver.resolve("files.test") == [IPAddress(parsing: "127.0.0.1")!])
        #expect(finished.withLock { $0 } == 0, "the unanswered lookups were still waiting")
    }

    @Test("HP3 a lookup ends by its deadline when the only server never answers, and the failure is kept briefly")
    func silentServerTimesOut() async throws {
        let server = try await TestNameServer.start([:], fallback: .silent)
        defer { Task { await server.stop() } }
        let resolver = Self.resolver(server, timeout: .milliseconds(300))
        await #expect {
            _ = try await resolver.resolve("never.test")
        } throws: { error in
            guard case ImageError.timedOut = error else { return false }
            return true
        }
        // One round at most: A and AAAA (none yet when the machine is slower than the deadline).
        let asked = server.queries(for: "never.test")
        #expect(asked <= 2)
        // Within the failure's short lifetime the answer is the same, without a query.
        await #expect(throws: ImageError.self) { try await resolver.resolve("never.test") }
        #expect(server.queries(for: "never.test") == asked)
    }

    @Test("100 lookups of one name at once make one round of queries; the answer is kept")
    func identicalLookupsShareOneQuery() async throws {
        let server = try await TestNameServer.start(["shared.test": .held(Self.local)])
        defer { Task { await server.stop() } }
        let resolver = Self.resolver(server)
        try await withThrowingTaskGroup(of: [IPAddress].self) { group in
            for _ in 0..<100 { group.addTask { try await resolver.resolve("shared.test") } }
            #expect(await eventually { server.queries(for: "shared.test") >= 2 })
            server.release("shared.test")
            for try await addresses in group { #expect(addresses == [IPAddress(parsing: "127.0.0.1")!]) }
        }
        #expect(server.queries(for: "shared.test") == 2)
        _ = try await resolver.resolve("SHARED.test")
        #expect(server.queries(for: "shared.test") == 2)
    }

    @Test("no such name fails at once, is kept for a moment, and the search list is tried in order")
    func noSuchNameAndSearchList() async throws {
        let server = try await TestNameServer.start(["img.corp.test": .address(Self.local)], fallback: .noSuchName)
        defer { Task { await server.stop() } }
        let resolver = Self.resolver(server, search: ["other.test", "corp.test"])
        await #expect(throws: ImageError.network("cannot resolve host 'missing.example': no such host")) {
            try await resolver.resolve("missing.example")
        }
        let asked = server.totalQueries
        await #expect(throws: ImageError.self) { try await resolver.resolve("missing.example") }
        #expect(server.totalQueries == asked)
        // A name without a dot goes through the search list first.
        #expect(try await resolver.resolve("img") == [IPAddress(parsing: "127.0.0.1")!])
        #expect(server.queries(for: "img.other.test") == 2)
        #expect(server.queries(for: "img.corp.test") == 2)
        #expect(server.queries(for: "img") == 0)
    }

    @Test("resolv.conf: name servers, search list, ndots, timeout, attempts and rotate, as glibc reads them")
    func resolvConf() throws {
        let configuration = ResolverConfiguration.parse("""
            # a comment
            nameserver 10.0.0.2
            nameserver ::1
            domain first.test
            search a.test b.test.
            options ndots:2 timeout:3 attempts:4 rotate
            nameserver 10.0.0.3
            nameserver 10.0.0.4
            """)
        #expect(configuration.nameservers.count == 3)
        #expect(configuration.searchDomains == ["a.test", "b.test"])
        #expect(configuration.ndots == 2)
        #expect(configuration.attemptTimeout == .seconds(3))
        #expect(configuration.attempts == 4)
        #expect(configuration.rotate)
        #expect(configuration.candidates(for: "img.cdn") == ["img.cdn.a.test", "img.cdn.b.test", "img.cdn"])
        #expect(configuration.candidates(for: "img.cdn.example") == ["img.cdn.example", "img.cdn.example.a.test", "img.cdn.example.b.test"])
        #expect(configuration.candidates(for: "absolute.example.") == ["absolute.example"])
        #expect(ResolverConfiguration.parse("").nameservers == [ResolverConfiguration.localServer])
    }

    @Test("the hosts file: addresses by name and alias, without regard to case")
    func hostsFile() {
        let hosts = HostsFile(text: "127.0.0.1 localhost\n::1 localhost ip6-localhost\n10.1.2.3 Images.Test images # comment\n")
        #expect(hosts.addresses(of: "localhost") == [IPAddress(parsing: "127.0.0.1")!, IPAddress(parsing: "::1")!])
        #expect(hosts.addresses(of: "images.test") == [IPAddress(parsing: "10.1.2.3")!])
        #expect(hosts.addresses(of: "IMAGES") == [IPAddress(parsing: "10.1.2.3")!])
        #expect(hosts.addresses(of: "comment") == nil)
    }

    @Test("responses: compressed names, an alias chain, another ID or question refused")
    func responseParsing() throws {
        // www.test CNAME cdn.test, cdn.test A 192.0.2.7
        var message = ByteBuffer(bytes: [0x12, 0x34, 0x81, 0x80, 0, 1, 0, 2, 0, 0, 0, 0])
        message.writeBytes([3] + Array("www".utf8) + [4] + Array("test".utf8) + [0, 0, 1, 0, 1])
        message.writeBytes([0xC0, 12, 0, 5, 0, 1, 0, 0, 0, 30, 0, 6, 3] + Array("cdn".utf8) + [0xC0, 16])
        message.writeBytes([0xC0, 38, 0, 1, 0, 1, 0, 0, 0, 20, 0, 4, 192, 0, 2, 7])
        let response = try #require(DNSMessage.response(message, id: 0x1234, name: "www.test", type: .a))
        #expect(response.addresses == [IPAddress(parsing: "192.0.2.7")!])
        #expect(response.canonicalName == "cdn.test")
        #expect(response.ttl == 20)
        #expect(DNSMessage.response(message, id: 0x1235, name: "www.test", type: .a) == nil)
        #expect(DNSMessage.response(message, id: 0x1234, name: "other.test", type: .a) == nil)
        #expect(DNSMessage.response(message, id: 0x1234, name: "www.test", type: .aaaa) == nil)
    }
}
