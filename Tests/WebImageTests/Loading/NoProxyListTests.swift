import Foundation
import Testing
import WebImage

/// `NoProxyList`: the hosts that go direct, read as curl reads `NO_PROXY`.
@Suite("NO_PROXY lists")
struct NoProxyListTests {
    @Test("a name matches itself and its subdomains, not a name that merely ends the same; case and dots do not matter")
    func domainNames() {
        let list = NoProxyList("example.com, .internal.test,Localhost.")
        #expect(list.matches(host: "example.com", port: 80))
        #expect(list.matches(host: "img.example.com", port: 443))
        #expect(list.matches(host: "IMG.Example.COM", port: 443))
        #expect(!list.matches(host: "notexample.com", port: 80))
        #expect(!list.matches(host: "example.com.evil.test", port: 80))
        #expect(list.matches(host: "internal.test", port: 80), "a leading dot is ignored, as curl does")
        #expect(list.matches(host: "a.b.internal.test", port: 80))
        #expect(list.matches(host: "localhost", port: 8080))
        #expect(!list.matches(host: "localhost.example", port: 80))
    }

    @Test("* alone sends every host direct; an empty list none")
    func wildcardAndEmpty() {
        #expect(NoProxyList("*").matches(host: "anything.example", port: 1))
        #expect(NoProxyList("example.com,*").matches(host: "other.example", port: 1))
        #expect(!NoProxyList("").matches(host: "example.com", port: 80))
        #expect(!NoProxyList(" , ").matches(host: "example.com", port: 80))
        #expect(!NoProxyList("*.example.com").matches(host: "example.org", port: 80))
    }

    @Test("IP addresses match exactly, networks by prefix, IPv6 with or without brackets; names are not resolved")
    func addresses() {
        let list = NoProxyList("127.0.0.1,10.0.0.0/8,[::1],fd00::/8")
        #expect(list.matches(host: "127.0.0.1", port: 80))
        #expect(!list.matches(host: "127.0.0.2", port: 80))
        #expect(list.matches(host: "10.200.3.4", port: 80))
        #expect(!list.matches(host: "11.0.0.1", port: 80))
        #expect(list.matches(host: "[::1]", port: 80))
        #expect(list.matches(host: "::1", port: 80))
        #expect(list.matches(host: "fd12:3456::1", port: 80))
        #expect(!list.matches(host: "fe80::1", port: 80))
        #expect(!list.matches(host: "localhost", port: 80), "a name is never resolved to match an address entry")
    }

    @Test("an entry with a port matches that port only; one without matches every port")
    func ports() {
        let list = NoProxyList("example.com:8080,127.0.0.1:9000,[::1]:81")
        #expect(list.matches(host: "example.com", port: 8080))
        #expect(list.matches(host: "img.example.com", port: 8080))
        #expect(!list.matches(host: "example.com", port: 80))
        #expect(list.matches(host: "127.0.0.1", port: 9000))
        #expect(!list.matches(host: "127.0.0.1", port: 9001))
        #expect(list.matches(host: "::1", port: 81))
        #expect(!list.matches(host: "::1", port: 80))
        #expect(list.matches(URL(string: "http://example.com:8080/a.png")!))
        #expect(!list.matches(URL(string: "https://example.com/a.png")!), "https without a port is port 443")
    }
}
