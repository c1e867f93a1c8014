import Foundation
import Testing

/// Relative links in the repository's Markdown (README.md, docs/, deploy/, Benchmarks/ and the
/// DocC articles) lead to files that exist, and a `#fragment` to a heading of its page.
@Suite("Links between documents")
struct DocumentLinksTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    static let documents = [
        "README.md", "deploy/README.md", "Benchmarks/README.md", "Benchmarks/RESULTS.md", "Benchmarks/proxy/README.md",
    ]
    static let folders = ["docs", "Sources/WebImage/WebImage.docc", "Sources/WebImageServer/WebImageServer.docc"]

    @Test("every relative link leads to an existing file, and its fragment to a heading there")
    func relativeLinksResolve() throws {
        var pages = Self.documents
        for folder in Self.folders {
            let names = try FileManager.default.contentsOfDirectory(atPath: Self.root.appending(path: folder).path)
            pages += names.filter { $0.hasSuffix(".md") }.map { "\(folder)/\($0)" }
        }
        var checked = 0
        for page in pages.sorted() {
            let text = try String(contentsOf: Self.root.appending(path: page), encoding: .utf8)
            for target in Self.links(in: text) where !target.contains(":") {
                checked += 1
                let parts = target.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
                let base = Self.root.appending(path: page).deletingLastPathComponent()
                let file = parts[0].isEmpty ? Self.root.appending(path: page) : base.appending(path: parts[0]).standardizedFileURL
                #expect(FileManager.default.fileExists(atPath: file.path), "\(page): \(target) leads nowhere")
                guard parts.count == 2, file.pathExtension == "md", let linked = try? String(contentsOf: file, encoding: .utf8) else { continue }
                #expect(Self.anchors(in: linked).contains(parts[1]), "\(page): \(target) names no heading of \(file.lastPathComponent)")
            }
        }
        #expect(checked > 20, "only \(checked) links found")
    }

    /// The targets of `[text](target)` outside fenced code blocks.
    static func links(in text: String) -> [String] {
        var links: [String] = []
        var fenced = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.trimmingCharacters(in: .whitespaces).hasPrefix("```") { fenced.toggle(); continue }
            guard !fenced else { continue }
            links += line.matches(of: /\]\(([^)\s]+)\)/).map { String($0.output.1) }
        }
        return links
    }

    /// The fragments GitHub gives the page's headings: lower case, punctuation dropped,
    /// spaces as hyphens.
    static func anchors(in text: String) -> Set<String> {
        var anchors: Set<String> = []
        var fenced = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.trimmingCharacters(in: .whitespaces).hasPrefix("```") { fenced.toggle(); continue }
            guard !fenced, line.hasPrefix("#") else { continue }
            let title = line.drop { $0 == "#" }.trimmingCharacters(in: .whitespaces).lowercased()
            let kept = title.unicodeScalars.filter { CharacterSet.alphanumerics.contains($0) || $0 == " " || $0 == "-" || $0 == "_" }
            anchors.insert(String(String.UnicodeScalarView(kept)).replacingOccurrences(of: " ", with: "-"))
        }
        return anchors
    }
}
