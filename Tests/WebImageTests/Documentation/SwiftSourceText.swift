/// Swift source with its comments and string literals blanked out: each character of a
/// comment or literal becomes a space (newlines stay), so what is left is declarations and
/// code at their original positions. Handles nested block comments, multi-line literals,
/// raw literals (`#"…"#`) and interpolations inside literals as literal text.
enum SwiftSourceText {
    /// One token of ``tokens(_:)`` and the line it is on (from 1).
    struct Token {
        var text: String
        var line: Int
    }

    /// The tokens of `code` (from ``code(_:)``): identifiers (with backquotes),
    /// `@attributes`, newlines (`"\n"`) and single punctuation characters.
    static func tokens(_ code: String) -> [Token] {
        var tokens: [Token] = []
        var current = ""
        var line = 1
        func flush() {
            if !current.isEmpty { tokens.append(Token(text: current, line: line)); current = "" }
        }
        for character in code {
            if character.isLetter || character.isNumber || character == "_" || character == "`"
                || (character == "@" && current.isEmpty) {
                current.append(character)
            } else {
                flush()
                if !character.isWhitespace || character == "\n" { tokens.append(Token(text: String(character), line: line)) }
                if character == "\n" { line += 1 }
            }
        }
        flush()
        return tokens
    }

    static func code(_ source: String) -> String {
        let characters = Array(source)
        var output = [Character]()
        output.reserveCapacity(characters.count)
        var index = 0

        func blank(_ character: Character) { output.append(character == "\n" ? "\n" : " ") }
        // Two characters compared in place: this runs once per character of every source.
        func starts(_ text: String, at position: Int) -> Bool {
            guard position + 1 < characters.count, characters[position] == text.first else { return false }
            return characters[position + 1] == text.last
        }

        while index < characters.count {
            if starts("//", at: index) {
                while index < characters.count, characters[index] != "\n" { blank(characters[index]); index += 1 }
            } else if starts("/*", at: index) {
                var depth = 0
                repeat {
                    if starts("/*", at: index) { depth += 1; blank(" "); blank(" "); index += 2 }
                    else if starts("*/", at: index) { depth -= 1; blank(" "); blank(" "); index += 2 }
                    else { blank(characters[index]); index += 1 }
                } while depth > 0 && index < characters.count
            } else if characters[index] == "\"" || (characters[index] == "#" && rawQuoteFollows(characters, index)) {
                index = skipLiteral(characters, from: index, into: &output)
            } else {
                output.append(characters[index])
                index += 1
            }
        }
        return String(output)
    }

    private static func rawQuoteFollows(_ characters: [Character], _ start: Int) -> Bool {
        var position = start
        while position < characters.count, characters[position] == "#" { position += 1 }
        return position < characters.count && characters[position] == "\""
    }

    /// The index past an interpolation's closing parenthesis; `start` is its opening one.
    private static func skipInterpolation(_ characters: [Character], from start: Int) -> Int {
        var depth = 0
        var index = start
        var ignored = [Character]()
        while index < characters.count {
            switch characters[index] {
            case "(": depth += 1; index += 1
            case ")":
                depth -= 1
                index += 1
                if depth == 0 { return index }
            case "\"":
                index = skipLiteral(characters, from: index, into: &ignored)
            case "#" where rawQuoteFollows(characters, index):
                index = skipLiteral(characters, from: index, into: &ignored)
            default: index += 1
            }
        }
        return index
    }

    /// Blanks one literal starting at `start` (its `#`s or opening quote) and returns the index past it.
    private static func skipLiteral(_ characters: [Character], from start: Int, into output: inout [Character]) -> Int {
        var index = start
        var hashes = 0
        while characters[index] == "#" { hashes += 1; index += 1 }
        let multiline = index + 2 < characters.count && characters[index + 1] == "\"" && characters[index + 2] == "\""
        let quotes = multiline ? 3 : 1
        index += quotes
        let closing = Array(String(repeating: "\"", count: quotes) + String(repeating: "#", count: hashes))
        while index < characters.count {
            if characters[index] == "\\" {
                let escape = index + 1 + hashes
                let isEscape = hashes == 0 || (escape <= characters.count && characters[index + 1..<escape].allSatisfy { $0 == "#" })
                if isEscape, escape < characters.count, characters[escape] == "(" {
                    index = skipInterpolation(characters, from: escape)
                    continue
                }
                if hashes == 0 { index += 2; continue }
            }
            if index + closing.count <= characters.count, characters[index..<index + closing.count].elementsEqual(closing) {
                index += closing.count
                break
            }
            if !multiline, characters[index] == "\n" { break }
            index += 1
        }
        for character in characters[start..<min(index, characters.count)] {
            output.append(character == "\n" ? "\n" : " ")
        }
        return min(index, characters.count)
    }
}
