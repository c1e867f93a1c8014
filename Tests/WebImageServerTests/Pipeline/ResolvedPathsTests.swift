import Foundation
import Testing
import WebImage
@testable import WebImageServer

@Suite("Resolved paths")
struct ResolvedPathsTests {
    static func entry(_ path: String) throws -> ResolvedPaths.Entry {
        let request = try ProxyURLParser(keys: []).parse(path: path)
        let variant = ProxyPipeline.Variant(request: ImageRequest.variant(url: request.source), key: request.source.absoluteString + "|")
        return ResolvedPaths.Entry(request: request, variants: [.fromSource: variant], disposition: ContentDisposition(stem: "a"), kind: .image)
    }

    @Test("remembers a resolved path and gives it back")
    func remembers() throws {
        let paths = ResolvedPaths()
        let path = "/_/rs:fit:300:300/plain/http://example.com/a.jpg"
        #expect(paths.entry(forPath: path) == nil)
        paths.remember(try Self.entry(path), forPath: path)
        #expect(paths.entry(forPath: path)?.request == (try Self.entry(path)).request)
    }

    @Test("never remembers a path with expires: that check depends on the time")
    func skipsExpiring() throws {
        let paths = ResolvedPaths()
        let path = "/_/exp:4102444800/plain/http://example.com/a.jpg"
        paths.remember(try Self.entry(path), forPath: path)
        #expect(paths.entry(forPath: path) == nil)
    }

    @Test("keeps about its byte limit, dropping the least recently used")
    func bounded() throws {
        // An entry costs about 600 bytes here; at most 5 % of the limit may go to one.
        let paths = ResolvedPaths(byteLimit: 40 * 1024)
        let template = try Self.entry("/_/plain/http://example.com/a.jpg")
        for index in 0..<100 { paths.remember(template, forPath: "/_/plain/http://example.com/\(index).jpg") }
        #expect(paths.entry(forPath: "/_/plain/http://example.com/0.jpg") == nil)
        #expect(paths.entry(forPath: "/_/plain/http://example.com/99.jpg") != nil)
    }
}
