import Foundation
import Testing

/// `docs/sdwebimage-mapping.md` against the sources of `Sources/WebImage`: every public
/// type is named, every named counterpart exists, and the summary counts the table.
@Suite("SDWebImage mapping document")
struct SDWebImageMappingTests {
    static let repositoryRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func document() throws -> MappingDocument {
        let url = repositoryRoot.appendingPathComponent("docs/sdwebimage-mapping.md")
        return MappingDocument(try String(contentsOf: url, encoding: .utf8))
    }

    /// The sources are read once for the tests that check against them.
    static let readAPI = Result { try PublicSwiftAPI(directory: repositoryRoot.appendingPathComponent("Sources/WebImage")) }

    static func api() throws -> PublicSwiftAPI {
        try readAPI.get()
    }

    @Test("the document names every public type of WebImage")
    func everyPublicTypeIsNamed() throws {
        let api = try Self.api()
        #expect(api.types.count > 100)
        let problems = MappingAudit.coverageProblems(try Self.document(), api: api)
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
    }

    @Test("every counterpart the document names is a public WebImage symbol")
    func everyCounterpartExists() throws {
        let document = try Self.document()
        #expect(document.nonUIRows.count > 150)
        let problems = MappingAudit.counterpartProblems(document, api: try Self.api())
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
    }

    @Test("the summary counts the rows; each row has a status and, unless full, a reason")
    func summaryCountsTheRows() throws {
        let document = try Self.document()
        let problems = MappingAudit.summaryProblems(document) + MappingAudit.rowProblems(document)
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
        #expect(document.summary?.nonUI == document.nonUIRows.count)
    }

    // MARK: The checks on documents and sources made to fail

    static let sample = """
        /// A doc comment naming `public struct Hidden` is not code.
        public final class Manager<T: Sendable>: Sendable {
            public struct Inner { public var size: Int }
            public func load(url: URL) {}
            public func load(_ data: [String: Int], into target: inout Set<Int>, then: (@Sendable (Int, Int) -> Void)? = nil) {}
            public init?<T>(values: Dictionary<String, T>) { nil }
            let text = "public struct InString {}"
            struct InternalNested {}
        }
        extension Manager: CustomStringConvertible { public var description: String { "" } }
        public extension Manager { struct FromPublicExtension {} }
        /* public enum InComment { /* nested */ } */
        public enum Kind { case small, large(Int) }
        public typealias Handler = @Sendable () -> Void
        public protocol Loading { func canLoad(_ url: URL) -> Bool }
        struct Internal { public struct NotReachable {} }
        public actor Worker {}
        """

    @Test("the source reader finds public types, nested ones and members, and nothing in comments or strings")
    func sourceReader() {
        let api = PublicSwiftAPI(sources: [Self.sample])
        #expect(api.types == [
            "Manager", "Manager.Inner", "Manager.FromPublicExtension", "Kind", "Handler", "Loading", "Worker",
        ])
        #expect(api.hasMember("load", of: "Manager"))
        #expect(api.hasMember("description", of: "Manager"))
        #expect(api.hasMember("size", of: "Manager.Inner"))
        #expect(api.hasMember("large", of: "Kind") && api.hasMember("small", of: "Kind"))
        #expect(api.hasMember("canLoad", of: "Loading"))
        #expect(!api.hasMember("text", of: "Manager"))
        #expect(api.signatures["Manager"] == ["load(url:)", "load(_:into:then:)", "init(values:)"])
        #expect(api.signatures["Loading"] == ["canLoad(_:)"])
    }

    static let brokenDocument = """
        **Summary:** 3 non-UI items: 2 full, 0 part, 1 none; 1 UI items.

        ## Non-UI items

        | SDWebImage | WebImage | Status | Why |
        | --- | --- | --- | --- |
        | SDWebImageManager | `Manager.load(url:)`, `Manager.unload()`, `Manager.load(from:)` | full | |
        | SDWebImageOptions | `Kind.small` | part | |
        | SDImageCache | `Missing` | maybe | a status outside the vocabulary |

        ## UI items

        | SDWebImage | WebImage | Status | Why |
        | --- | --- | --- | --- |
        | UIImageView (WebCache) | `Loading` | UI | Apple UI |

        ## WebImage types with no SDWebImage counterpart

        - `Worker`: runs work.
        - `Absent`: not a type.
        """

    @Test("a document with wrong counts, statuses, names and coverage fails each check")
    func brokenDocumentFails() {
        let api = PublicSwiftAPI(sources: [Self.sample])
        let document = MappingDocument(Self.brokenDocument)
        #expect(document.nonUIRows.count == 3 && document.uiRows.count == 1 && document.unmatched.count == 2)

        let summary = MappingAudit.summaryProblems(document)
        #expect(summary.count == 1 && summary[0].contains("the tables hold"))

        let rows = MappingAudit.rowProblems(document)
        #expect(rows.contains { $0.contains("status 'maybe'") })
        #expect(rows.contains { $0.contains("SDWebImageOptions") && $0.contains("no reason") })

        let counterparts = MappingAudit.counterpartProblems(document, api: api)
        #expect(counterparts.contains { $0.contains("`Manager.unload()` names no public member unload") })
        #expect(counterparts.contains { $0.contains("`Missing` names no public type") })
        #expect(counterparts.contains { $0.contains("`Manager.load(from:)` has no public function or initializer load(from:)") })
        #expect(!counterparts.contains { $0.contains("Manager.load(url:)") || $0.contains("Kind.small") })

        let coverage = MappingAudit.coverageProblems(document, api: api)
        #expect(coverage.contains { $0.contains("`Absent` is listed") })
        #expect(coverage.last == "public types the document does not name: Handler, Manager.FromPublicExtension, Manager.Inner")
    }
}
