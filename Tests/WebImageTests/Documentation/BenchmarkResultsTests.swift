import Foundation
import Testing

/// The benchmark figures are stated once, in `Benchmarks/results/*.json`;
/// `Benchmarks/tools/results` renders them into `Benchmarks/RESULTS.md` and the README's
/// headline table. These tests render both tables by the same rules and fail when a page
/// differs from the JSON (a figure edited by hand, or the script not run after a benchmark).
@Suite("Benchmark figures in RESULTS.md and the README")
struct BenchmarkResultsTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// One `Benchmarks/results/<id>.json`.
    struct Figure: Decodable {
        let id: String
        let figure: String
        let value: String
        let baseline: String?
        let target: String?
        let met: String?
        let machine: String?
        let date: String
        let command: String?
        let headline: Bool?

        /// The text of a column, as `tools/results` writes it: "—" when empty, the command in
        /// backticks.
        func text(_ column: String) -> String {
            let value: String? =
                switch column {
                case "figure": figure
                case "value": self.value
                case "baseline": baseline
                case "target": target
                case "met": met
                case "machine": machine
                case "date": date
                case "command": command.flatMap { $0.isEmpty ? nil : "`\($0)`" }
                default: nil
                }
            guard let value, !value.isEmpty else { return "—" }
            return value
        }
    }

    static let resultsColumns = ["figure", "value", "baseline", "target", "met", "machine", "date", "command"]
    static let readmeColumns = ["figure", "value", "baseline", "target", "met", "machine"]

    static func figures() throws -> [(file: String, figure: Figure)] {
        let folder = root.appending(path: "Benchmarks/results")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".json") }
        return try names.map { name in
            (name, try JSONDecoder().decode(Figure.self, from: Data(contentsOf: folder.appending(path: name))))
        }.sorted { $0.figure.id < $1.figure.id }
    }

    /// A Markdown table: the header, the separator, a row a figure; pipes in cells escaped.
    static func table(_ figures: [Figure], columns: [String]) -> [String] {
        let cell = { (text: String) in text.replacingOccurrences(of: "\n", with: " ").replacingOccurrences(of: "|", with: "\\|") }
        let header = "| " + columns.joined(separator: " | ") + " |"
        let separator = "|" + String(repeating: " --- |", count: columns.count)
        return [header, separator] + figures.map { figure in
            "| " + columns.map { cell(figure.text($0)) }.joined(separator: " | ") + " |"
        }
    }

    /// Records the first line where `found` and `expected` part, if any.
    static func expectSame(_ found: [String], _ expected: [String], in page: String) {
        let count = max(found.count, expected.count)
        guard let index = (0..<count).first(where: { $0 >= found.count || $0 >= expected.count || found[$0] != expected[$0] }) else { return }
        let wanted = index < expected.count ? expected[index] : "no more rows"
        let seen = index < found.count ? found[index] : "no more rows"
        Issue.record("\(page), table line \(index + 1), differs from Benchmarks/results/*.json (run Benchmarks/tools/results): the JSON gives\n\(wanted)\nthe page has\n\(seen)")
    }

    static func page(_ path: String) throws -> String {
        try String(contentsOf: root.appending(path: path), encoding: .utf8)
    }

    @Test("every figure file names its id and has a figure, a value and a date")
    func figureFilesAreWellFormed() throws {
        let figures = try Self.figures()
        #expect(figures.count > 20, "only \(figures.count) figures")
        for (file, figure) in figures {
            #expect(file == figure.id + ".json", "\(file) holds the id \(figure.id)")
            #expect(figure.id.wholeMatch(of: /[a-z0-9]+(-[a-z0-9]+)*/) != nil, "\(file): id \(figure.id) is not a slug")
            #expect(!figure.figure.isEmpty && !figure.value.isEmpty, "\(file): no figure or value")
            #expect(figure.date.wholeMatch(of: /\d{4}-\d{2}-\d{2}/) != nil, "\(file): date \(figure.date) is not YYYY-MM-DD")
        }
        #expect(figures.contains { $0.figure.headline == true }, "no figure is a headline")
    }

    @Test("Benchmarks/RESULTS.md's table is every figure of Benchmarks/results")
    func resultsPageMatchesTheFigures() throws {
        let expected = Self.table(try Self.figures().map(\.figure), columns: Self.resultsColumns)
        let lines = try Self.page("Benchmarks/RESULTS.md").split(separator: "\n").map(String.init).filter { $0.hasPrefix("|") }
        Self.expectSame(lines, expected, in: "Benchmarks/RESULTS.md")
    }

    @Test("README's headline table is the headline figures of Benchmarks/results")
    func readmeHeadlineTableMatchesTheFigures() throws {
        let headline = try Self.figures().map(\.figure).filter { $0.headline == true }
        let expected = Self.table(headline, columns: Self.readmeColumns)
        let readme = try Self.page("README.md")
        let begin = try #require(readme.range(of: "<!-- figures:begin -->"), "README.md has no <!-- figures:begin -->")
        let end = try #require(readme.range(of: "<!-- figures:end -->"), "README.md has no <!-- figures:end -->")
        try #require(begin.upperBound <= end.lowerBound, "README.md's figures:end comes before figures:begin")
        let section = readme[begin.upperBound..<end.lowerBound].split(separator: "\n").map(String.init).filter { !$0.isEmpty }
        Self.expectSame(section, expected, in: "README.md")
    }
}
