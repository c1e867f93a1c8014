import Foundation
import Testing

/// Every public or open declaration in the sources of `WebImage`, `WebImageServer` and
/// `WebImageLocking` has a doc comment (`///` or `/** */`) right above it, so that DocC
/// documents each symbol. Attributes and modifiers may sit between the comment and the
/// declaration's keyword; a `public extension` needs none, its members do.
@Suite("Doc comments of public declarations")
struct PublicDocCommentsTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    static let modules = ["Sources/WebImage", "Sources/WebImageServer", "Sources/WebImageLocking"]

    @Test("every public declaration has a doc comment right above it")
    func publicDeclarationsAreDocumented() throws {
        var checked = 0
        for module in Self.modules {
            let directory = Self.root.appending(path: module)
            let files = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: nil)?
                .compactMap { $0 as? URL }
                .filter { $0.pathExtension == "swift" } ?? []
            for file in files.sorted(by: { $0.path < $1.path }) {
                let source = try String(contentsOf: file, encoding: .utf8)
                let path = String(file.standardizedFileURL.path.dropFirst(Self.root.standardizedFileURL.path.count + 1))
                for declaration in PublicDeclarations.scan(source) {
                    checked += 1
                    if !declaration.isDocumented {
                        Issue.record("\(path):\(declaration.line): `\(declaration.text)` has no doc comment")
                    }
                }
            }
        }
        #expect(checked > 1000, "only \(checked) public declarations found")
    }

    @Test("the scanner finds public declarations and their doc comments")
    func scannerReadsDeclarations() {
        let source = """
            /// A type.
            public struct Thing: Hashable {
                /// Documented.
                public var a: Int
                public let b: Int
                private(set) public var c = 0
                var internalOne = 0

                /// Documented, attributes between.
                @inlinable
                @available(*, deprecated,
                           message: "no")
                nonisolated(nonsending)
                public func d() async {}

                /**
                 Documented with a block comment.
                 */
                public static func == (lhs: Thing, rhs: Thing) -> Bool { true }

                @discardableResult
                public func e(
                    x: Int = .init()
                ) -> Int {
                    let local = 1
                    switch local { case 1: return 1; default: return 0 }
                }

                public init(from decoder: any Decoder) throws { a = 0; b = 0 }
            }

            /// An enum.
            public enum Kind {
                /// Documented.
                case one
                /// Documented.
                case optional
                case required, open
            }

            public extension Thing {
                func f() {}
                /// Documented.
                var g: Int { 0 }
            }

            extension Thing: CustomStringConvertible {
                public var description: String { "" }
                func internalTwo() {}
            }

            /// A protocol.
            public protocol Shape {
                var sides: Int { get }
                /// Documented.
                func area() -> Double
            }

            struct Internal {
                /// Documented.
                public var h = 0
            }
            """
        let found = PublicDeclarations.scan(source)
        let undocumented = found.filter { !$0.isDocumented }.map(\.line)
        #expect(found.count == 19)
        #expect(undocumented == [5, 6, 21, 29, 38, 42, 48, 54])
    }
}

/// The public and open declarations of one Swift source file, found with
/// ``SwiftSourceText`` (so comments and string literals hide nothing and fake nothing).
///
/// A declaration is public with `public` or `open` among its modifiers, or with no access
/// modifier inside a `public extension` or a public protocol; so is every case of a public
/// enum. Its comment is the line right above its first attribute or modifier.
enum PublicDeclarations {
    /// One declaration: the line of its first attribute, modifier or keyword (from 1), the
    /// text of its keyword's line, and whether a doc comment ends on the line above.
    struct Declaration: Equatable {
        var line: Int
        var text: String
        var isDocumented: Bool
    }

    private typealias Token = SwiftSourceText.Token

    /// The braces of a type or an extension; other braces (bodies, accessors, closures) have no kind.
    private struct Scope {
        var kind: String?
        var isPublic = false
        var isExplicitlyPublic = false
    }

    private static let typeKeywords: Set<String> = ["struct", "class", "enum", "protocol", "actor", "extension"]
    private static let memberKeywords: Set<String> = [
        "func", "var", "let", "init", "subscript", "case", "typealias", "associatedtype",
    ]
    private static let accessKeywords: Set<String> = ["public", "open", "package", "internal", "fileprivate", "private"]
    private static let modifiers: Set<String> = [
        "final", "indirect", "nonisolated", "static", "class", "override", "convenience", "required",
        "mutating", "nonmutating", "lazy", "weak", "unowned", "dynamic", "optional", "consuming", "borrowing",
        "distributed", "isolated",
    ]

    /// The public declarations of `source` other than extensions, in the order they appear.
    static func scan(_ source: String) -> [Declaration] {
        let lines = source.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let tokens = SwiftSourceText.tokens(SwiftSourceText.code(source)).filter { $0.text != "\n" }
        var declarations: [Declaration] = []
        var scopes: [Scope] = []
        var pending: Scope?
        for (index, token) in tokens.enumerated() {
            switch token.text {
            case "{":
                scopes.append(pending ?? Scope())
                pending = nil
                continue
            case "}":
                if !scopes.isEmpty { scopes.removeLast() }
                continue
            default:
                break
            }
            let keyword = token.text
            let next = index + 1 < tokens.count ? tokens[index + 1].text : ""
            let enclosing = scopes.last ?? Scope(kind: "file")
            let isType = typeKeywords.contains(keyword)
                && (next.first?.isUppercase == true || next.first == "_" || next.first == "`")
            let isMember = memberKeywords.contains(keyword) && enclosing.kind != nil
                && (index == 0 || tokens[index - 1].text != ".")
            guard isType || isMember else { continue }
            if keyword == "case", enclosing.kind != "enum" { continue }
            let (start, access) = start(of: index, in: tokens)
            let isPublic: Bool
            if let access {
                isPublic = access == "public" || access == "open"
            } else {
                isPublic = (enclosing.kind == "extension" && enclosing.isExplicitlyPublic)
                    || (enclosing.kind == "protocol" && enclosing.isPublic)
                    || (keyword == "case" && enclosing.isPublic)
            }
            if isType { pending = Scope(kind: keyword, isPublic: isPublic, isExplicitlyPublic: access == "public") }
            guard isPublic, keyword != "extension" else { continue }
            let line = tokens[start].line
            declarations.append(Declaration(
                line: line,
                text: lines[token.line - 1].trimmingCharacters(in: .whitespaces),
                isDocumented: isDocComment(endingAbove: line, in: lines)
            ))
        }
        return declarations
    }

    /// The index of the declaration's first attribute or modifier before the keyword at
    /// `index`, and its access modifier (`private(set)` and the like are not one). A line
    /// above the keyword's counts only when it holds nothing but attributes and modifiers:
    /// `case optional` on one line and `case required` on the next are two declarations.
    private static func start(of index: Int, in tokens: [Token]) -> (Int, String?) {
        var start = index
        var position = index - 1
        while position >= 0 {
            let text = tokens[position].text
            if text == ")" {
                // An attribute's arguments, `nonisolated(nonsending)` or `private(set)`.
                var depth = 0
                var open = position
                while open >= 0 {
                    if tokens[open].text == ")" { depth += 1 } else if tokens[open].text == "(" { depth -= 1 }
                    if depth == 0 { break }
                    open -= 1
                }
                guard open > 0, isPrefix(tokens[open - 1].text) else { break }
                start = open - 1
                position = open - 2
                continue
            }
            guard isPrefix(text) else { break }
            start = position
            position -= 1
        }
        if position >= 0, tokens[position].line == tokens[start].line, tokens[start].line < tokens[index].line {
            start = (position + 1...index).first { tokens[$0].line > tokens[position].line } ?? index
        }
        var access: String?
        for position in start..<index where accessKeywords.contains(tokens[position].text) {
            let isSetter = tokens[position + 1].text == "("
            if !isSetter, access != "public", access != "open" { access = tokens[position].text }
        }
        return (start, access)
    }

    /// Whether `text` may come before a declaration's keyword: an attribute or a modifier.
    private static func isPrefix(_ text: String) -> Bool {
        text.hasPrefix("@") || modifiers.contains(text) || accessKeywords.contains(text)
    }

    /// Whether the line above `line` (from 1) ends a `///` or `/** */` comment.
    private static func isDocComment(endingAbove line: Int, in lines: [String]) -> Bool {
        var above = line - 2
        guard above >= 0 else { return false }
        let text = lines[above].trimmingCharacters(in: .whitespaces)
        if text.hasPrefix("///") { return true }
        guard text.hasSuffix("*/") else { return false }
        while above >= 0, !lines[above].contains("/*") { above -= 1 }
        return above >= 0 && lines[above].contains("/**")
    }
}
