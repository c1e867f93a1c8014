/// What is wrong between the SDWebImage mapping document and WebImage's public API:
/// summary counts that differ from the table, statuses outside the vocabulary, rows without
/// a counterpart or a reason, counterparts that name no public symbol, and public types
/// the document never names.
enum MappingAudit {
    static let statuses: Set<String> = ["full", "part", "none"]
    static let uiStatus = "UI"

    static func problems(_ document: MappingDocument, api: PublicSwiftAPI) -> [String] {
        summaryProblems(document) + rowProblems(document) + counterpartProblems(document, api: api)
            + coverageProblems(document, api: api)
    }

    /// The summary line against the rows.
    static func summaryProblems(_ document: MappingDocument) -> [String] {
        guard let summary = document.summary else { return ["no summary line"] }
        let rows = document.nonUIRows
        let counted = MappingDocument.Summary(
            nonUI: rows.count,
            full: rows.filter { $0.status == "full" }.count,
            part: rows.filter { $0.status == "part" }.count,
            none: rows.filter { $0.status == "none" }.count,
            ui: document.uiRows.count
        )
        var problems: [String] = []
        if summary != counted { problems.append("the summary says \(summary), the tables hold \(counted)") }
        if summary.full + summary.part + summary.none != summary.nonUI {
            problems.append("the summary's full, part and none add up to \(summary.full + summary.part + summary.none), not \(summary.nonUI)")
        }
        return problems
    }

    /// Statuses, reasons and counterparts row by row.
    static func rowProblems(_ document: MappingDocument) -> [String] {
        var problems: [String] = []
        for row in document.nonUIRows {
            if !statuses.contains(row.status) {
                problems.append("line \(row.line) (\(row.sdWebImage)): status '\(row.status)' is not full, part or none")
            }
            if row.status != "full", row.reason.isEmpty {
                problems.append("line \(row.line) (\(row.sdWebImage)): a \(row.status) row gives no reason")
            }
            if row.status != "none", row.counterparts.isEmpty {
                problems.append("line \(row.line) (\(row.sdWebImage)): a \(row.status) row names no counterpart")
            }
        }
        for row in document.uiRows where row.status != uiStatus || row.reason.isEmpty {
            problems.append("line \(row.line) (\(row.sdWebImage)): a UI row needs status \(uiStatus) and a reason")
        }
        return problems
    }

    /// Every backquoted counterpart names a public type, or a public type and one of its public members.
    static func counterpartProblems(_ document: MappingDocument, api: PublicSwiftAPI) -> [String] {
        (document.nonUIRows + document.uiRows).flatMap { row in
            row.counterparts.compactMap { name in
                resolve(name, in: api).problem.map { "line \(row.line) (\(row.sdWebImage)): `\(name)` \($0)" }
            }
        }
    }

    /// Every public type is a counterpart (or the type of one) or is in the last section.
    static func coverageProblems(_ document: MappingDocument, api: PublicSwiftAPI) -> [String] {
        var named = Set<String>()
        for row in document.nonUIRows + document.uiRows {
            for name in row.counterparts {
                if let type = resolve(name, in: api).type { named.insert(type) }
            }
        }
        var problems: [String] = []
        for entry in document.unmatched {
            if !api.hasType(entry.name) {
                problems.append("line \(entry.line): `\(entry.name)` is listed as a type with no counterpart but is not a public type")
            }
            if entry.purpose.isEmpty { problems.append("line \(entry.line): `\(entry.name)` says nothing of what it is for") }
            named.insert(entry.name)
        }
        let missing = api.types.subtracting(named).sorted()
        if !missing.isEmpty {
            problems.append("public types the document does not name: \(missing.joined(separator: ", "))")
        }
        return problems
    }

    /// The longest leading run of `name`'s dotted parts that is a public type, and what is
    /// wrong with the rest: the first part after the type must be a public member of it, and
    /// a member written with its labels (`load(url:)`) must have a public declaration with
    /// those labels.
    static func resolve(_ name: String, in api: PublicSwiftAPI) -> (type: String?, problem: String?) {
        let base = name.split(separator: "(", maxSplits: 1).first.map(String.init) ?? name
        let parts = base.split(separator: ".").map(String.init)
        guard !parts.isEmpty else { return (nil, "is empty") }
        for length in stride(from: parts.count, through: 1, by: -1) {
            let type = parts[..<length].joined(separator: ".")
            guard api.hasType(type) else { continue }
            guard length < parts.count else { return (type, nil) }
            let member = parts[length]
            guard api.hasMember(member, of: type) else { return (type, "names no public member \(member) of \(type)") }
            if length + 1 == parts.count, let open = name.firstIndex(of: "("), name.hasSuffix(")") {
                let signature = member + name[open...]
                if !api.hasSignature(signature, of: type) {
                    return (type, "has no public function or initializer \(signature) in \(type)")
                }
            }
            return (type, nil)
        }
        return (nil, "names no public type")
    }
}
