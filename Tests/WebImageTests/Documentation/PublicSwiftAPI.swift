import Foundation

/// The public surface of a Swift module read from its sources: every `public` or `open`
/// type (class, struct, enum, protocol, actor, typealias), nested ones as `Outer.Inner`,
/// and for each type or extended type the base names of its public members (functions,
/// properties, initializers as `init`, subscripts as `subscript`, enum cases) and the
/// signatures of its public functions and initializers, `name(label:_:)` as DocC writes them.
/// Members of a protocol, cases of an enum and members of a `public extension` count as
/// public without a modifier of their own.
struct PublicSwiftAPI: Equatable {
    var types: Set<String> = []
    var members: [String: Set<String>] = [:]
    var signatures: [String: Set<String>] = [:]

    /// Reads every `.swift` file below `directory`.
    init(directory: URL) throws {
        let files = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: nil)?
            .compactMap { $0 as? URL }
            .filter { $0.pathExtension == "swift" } ?? []
        for file in files.sorted(by: { $0.path < $1.path }) {
            scan(try String(contentsOf: file, encoding: .utf8))
        }
    }

    /// Reads the given sources.
    init(sources: [String]) {
        for source in sources { scan(source) }
    }

    /// Whether `name` is a public type.
    func hasType(_ name: String) -> Bool { types.contains(name) }

    /// Whether `member` is a public member's base name of `type`.
    func hasMember(_ member: String, of type: String) -> Bool { members[type]?.contains(member) ?? false }

    /// Whether `signature` (`name(label:_:)`) is a public function or initializer of `type`.
    func hasSignature(_ signature: String, of type: String) -> Bool { signatures[type]?.contains(signature) ?? false }

    private struct Scope {
        /// The qualified name of the type or extended type; nil for any other braces.
        var name: String?
        var kind: String = ""
        var isPublic = false
    }

    private static let typeKeywords: Set<String> = ["class", "struct", "enum", "protocol", "actor", "extension"]
    private static let memberKeywords: Set<String> = ["func", "var", "let", "init", "subscript", "case"]
    private static let modifiers: Set<String> = [
        "final", "indirect", "nonisolated", "static", "class", "override", "convenience", "required",
        "mutating", "nonmutating", "lazy", "weak", "unowned", "dynamic", "optional", "consuming", "borrowing",
        "async", "distributed", "isolated",
    ]
    private static let accessKeywords: Set<String> = ["public", "open", "private", "fileprivate", "internal", "package"]

    private mutating func scan(_ source: String) {
        let tokens = SwiftSourceText.tokens(SwiftSourceText.code(source)).map(\.text)
        var scopes: [Scope] = []
        var pending: Scope?
        var index = 0
        while index < tokens.count {
            let token = tokens[index]
            switch token {
            case "{":
                scopes.append(pending ?? Scope())
                pending = nil
            case "}":
                if !scopes.isEmpty { scopes.removeLast() }
            case _ where Self.typeKeywords.contains(token):
                guard index + 1 < tokens.count, let (name, next) = Self.typeName(tokens, after: index),
                      token == "extension" || !Self.memberKeywords.contains(tokens[index + 1]) else { break }
                let enclosing = scopes.last(where: { $0.name != nil })
                let access = Self.access(tokens, before: index)
                if token == "extension" {
                    pending = Scope(name: name, kind: token, isPublic: access == "public")
                } else {
                    let qualified = enclosing?.name.map { "\($0).\(name)" } ?? name
                    let enclosingVisible = enclosing.map { $0.kind == "extension" || $0.isPublic } ?? true
                    let visible = enclosingVisible && Self.isPublic(access: access, in: scopes.last)
                    if visible { types.insert(qualified) }
                    pending = Scope(name: qualified, kind: token, isPublic: visible)
                }
                index = next
                continue
            case "typealias":
                if index + 1 < tokens.count,
                   Self.isPublic(access: Self.access(tokens, before: index), in: scopes.last) {
                    let name = tokens[index + 1]
                    types.insert(scopes.last.flatMap(\.name).map { "\($0).\(name)" } ?? name)
                }
            case _ where Self.memberKeywords.contains(token):
                guard let owner = scopes.last, let ownerName = owner.name else { break }
                let access = Self.access(tokens, before: index)
                let implicit = access == nil && (owner.kind == "protocol" || (owner.kind == "enum" && token == "case" && owner.isPublic))
                guard implicit || Self.isPublic(access: access, in: owner) else { break }
                let name = (token == "init" || token == "subscript") ? token : (index + 1 < tokens.count ? tokens[index + 1] : "")
                if token == "case" {
                    // `case a, b(x: Int)`: every name at this level before the line ends.
                    var position = index + 1
                    var depth = 0
                    while position < tokens.count, tokens[position] != "\n" || depth > 0 {
                        let part = tokens[position]
                        if part == "(" { depth += 1 } else if part == ")" { depth -= 1 }
                        else if depth == 0, position == index + 1 || tokens[position - 1] == "," { members[ownerName, default: []].insert(part) }
                        position += 1
                    }
                } else {
                    let base = name.trimmingCharacters(in: CharacterSet(charactersIn: "`"))
                    members[ownerName, default: []].insert(base)
                    if token == "func" || token == "init", let labels = Self.labels(tokens, after: token == "init" ? index : index + 1) {
                        signatures[ownerName, default: []].insert("\(base)(\(labels.map { "\($0):" }.joined()))")
                    }
                }
            default:
                break
            }
            index += 1
        }
    }

    /// A declaration is public with `public` or `open`, or with no modifier inside a
    /// `public extension` or a public protocol.
    private static func isPublic(access: String?, in scope: Scope?) -> Bool {
        if let access { return access == "public" || access == "open" }
        guard let scope, scope.name != nil else { return false }
        return scope.isPublic && (scope.kind == "extension" || scope.kind == "protocol")
    }

    /// The access keyword among the modifiers and attributes right before `index`.
    private static func access(_ tokens: [String], before index: Int) -> String? {
        var position = index - 1
        while position >= 0 {
            let token = tokens[position]
            if accessKeywords.contains(token) { return token }
            if token == ")" {
                // `private(set)` or an attribute's arguments.
                var depth = 0
                while position >= 0 {
                    if tokens[position] == ")" { depth += 1 } else if tokens[position] == "(" { depth -= 1 }
                    if depth == 0 { break }
                    position -= 1
                }
                position -= 1
                continue
            }
            if modifiers.contains(token) || token.hasPrefix("@") || token == "\n" { position -= 1; continue }
            return nil
        }
        return nil
    }

    /// The argument labels of the parameter list that follows the name at `index` (after a
    /// generic clause and an initializer's `?` or `!`); nil when no list follows.
    private static func labels(_ tokens: [String], after index: Int) -> [String]? {
        var position = index + 1
        if position < tokens.count, tokens[position] == "?" || tokens[position] == "!" { position += 1 }
        if position < tokens.count, tokens[position] == "<" {
            var depth = 0
            while position < tokens.count {
                if tokens[position] == "<" { depth += 1 } else if tokens[position] == ">", tokens[position - 1] != "-" { depth -= 1 }
                position += 1
                if depth == 0 { break }
            }
        }
        guard position < tokens.count, tokens[position] == "(" else { return nil }
        var labels: [String] = []
        var segment: [String] = []
        var depth = 0
        var sawColon = false
        while position < tokens.count {
            let token = tokens[position]
            position += 1
            switch token {
            case "(", "[": depth += 1; if depth == 1 { continue }
            case ")", "]": depth -= 1
            case "<": depth += 1
            case ">" where tokens[position - 2] != "-": depth -= 1
            default: break
            }
            if depth == 0 || (depth == 1 && token == ",") {
                if let label = segment.first { labels.append(label) }
                segment = []
                sawColon = false
                if depth == 0 { return labels }
                continue
            }
            if depth == 1, token == ":" { sawColon = true }
            if depth == 1, !sawColon, token != "\n", token.first?.isLetter == true || token == "_" { segment.append(token) }
        }
        return nil
    }

    /// The (possibly dotted) name after a type keyword, and the index past it.
    private static func typeName(_ tokens: [String], after index: Int) -> (String, Int)? {
        var position = index + 1
        while position < tokens.count, tokens[position] == "\n" { position += 1 }
        guard position < tokens.count, let first = tokens[position].first, first.isUppercase || first == "_" else { return nil }
        var name = tokens[position]
        position += 1
        while position + 1 < tokens.count, tokens[position] == ".", tokens[position + 1].first?.isLetter == true {
            name += "." + tokens[position + 1]
            position += 2
        }
        return (name, position)
    }
}
