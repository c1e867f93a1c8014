import Foundation

/// `docs/sdwebimage-mapping.md` read as data: its summary line, the rows of its two
/// tables (non-UI and UI items) and the types listed as having no SDWebImage counterpart.
struct MappingDocument {
    /// One table row.
    struct Row: Equatable {
        var line: Int
        var sdWebImage: String
        /// The backquoted names in the WebImage column.
        var counterparts: [String]
        var status: String
        var reason: String
    }

    /// The counts the summary line states.
    struct Summary: Equatable {
        var nonUI: Int
        var full: Int
        var part: Int
        var none: Int
        var ui: Int
    }

    static let nonUIHeading = "## Non-UI items"
    static let uiHeading = "## UI items"
    static let unmatchedHeading = "## WebImage types with no SDWebImage counterpart"

    var summary: Summary?
    var nonUIRows: [Row] = []
    var uiRows: [Row] = []
    /// The types of the last section, each with the line that says what it is for.
    var unmatched: [(name: String, purpose: String, line: Int)] = []

    init(_ text: String) {
        var section = ""
        for (offset, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = String(rawLine)
            let number = offset + 1
            if line.hasPrefix("## ") { section = line; continue }
            if summary == nil, let parsed = Self.summary(line) { summary = parsed; continue }
            switch section {
            case Self.nonUIHeading, Self.uiHeading:
                guard let row = Self.row(line, number: number) else { continue }
                if section == Self.nonUIHeading { nonUIRows.append(row) } else { uiRows.append(row) }
            case Self.unmatchedHeading:
                guard line.hasPrefix("- `"), let names = Self.codeSpans(line).first else { continue }
                let purpose = line.split(separator: ":", maxSplits: 1).dropFirst().first.map(String.init) ?? ""
                unmatched.append((names, purpose.trimmingCharacters(in: .whitespaces), number))
            default:
                continue
            }
        }
    }

    /// `**Summary:** N non-UI items: F full, P part, X none; U UI items.`
    private static func summary(_ line: String) -> Summary? {
        guard line.hasPrefix("**Summary:**") else { return nil }
        let numbers = line.split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }
        guard numbers.count == 5 else { return nil }
        return Summary(nonUI: numbers[0], full: numbers[1], part: numbers[2], none: numbers[3], ui: numbers[4])
    }

    /// A table row with four cells; nil for headers, separators and other lines.
    private static func row(_ line: String, number: Int) -> Row? {
        guard line.hasPrefix("|") else { return nil }
        let cells = line.split(separator: "|", omittingEmptySubsequences: false)
            .dropFirst().dropLast()
            .map { $0.trimmingCharacters(in: .whitespaces) }
        guard cells.count == 4, !cells[0].hasPrefix("---"), cells[0] != "SDWebImage" else { return nil }
        return Row(
            line: number,
            sdWebImage: cells[0],
            counterparts: codeSpans(cells[1]),
            status: cells[2],
            reason: cells[3]
        )
    }

    /// The text between each pair of backquotes.
    static func codeSpans(_ text: String) -> [String] {
        text.split(separator: "`", omittingEmptySubsequences: false)
            .enumerated()
            .filter { $0.offset % 2 == 1 }
            .map { String($0.element) }
    }
}
