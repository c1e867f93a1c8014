/// Reads an SVG document's UTF-8 bytes as a sequence of ``SVGToken``s, checking the XML
/// syntax as it goes: a malformed tag, an unterminated comment or section, an undefined
/// entity or a bad character reference is ``ImageError/badImageData(_:)``, never guessed at.
///
/// The document type declaration is read only for its internal general entities
/// (`<!ENTITY name "value">`): a reference to one is replaced by its value once, as text,
/// never read again as markup or for further references, so entities cannot multiply
/// ("billion laughs"); the text they add altogether is bounded by `maxExpansion`. External
/// entities (`SYSTEM`, `PUBLIC`) and parameter entities are not defined: a reference to
/// them is an error, and nothing is ever loaded.
struct SVGTokenizer {
    let bytes: [UInt8]
    var position = 0
    /// The internal general entities of the document type declaration.
    var entities: [String: String] = [:]
    /// How many bytes entity references may add to the document in all.
    let maxExpansion: Int
    private var expanded = 0

    init(bytes: [UInt8], maxExpansion: Int) {
        self.bytes = bytes
        self.maxExpansion = maxExpansion
        // A UTF-8 byte order mark.
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { position = 3 }
    }

    /// The next token; `nil` at the end of the bytes.
    mutating func next() throws(ImageError) -> SVGToken? {
        guard position < bytes.count else { return nil }
        guard bytes[position] == UInt8(ascii: "<") else { return .text(try text()) }
        if has("<!--") {
            // Past the opening first: `<!-->` does not close itself.
            position += 4
            return try skip(past: "-->", what: "comment")
        }
        if has("<![CDATA[") {
            position += 9
            let start = position
            try find("]]>", what: "CDATA section")
            let content = String(decoding: bytes[start..<position], as: UTF8.self)
            position += 3
            return .text(content)
        }
        if has("<!DOCTYPE") { return try doctype() }
        if has("<?") { return try processingInstruction() }
        if has("</") { return try endTag() }
        if has("<!") { throw Self.error("markup '<!' that is not a comment, a CDATA section or the document type", at: position) }
        return try startTag()
    }

    // MARK: Markup

    private mutating func startTag() throws(ImageError) -> SVGToken {
        position += 1
        let name = try self.name()
        var attributes: [SVGAttribute] = []
        while true {
            let spaced = skipSpaces()
            guard position < bytes.count else { throw Self.error("the tag <\(name)> is not closed", at: position) }
            if has("/>") {
                position += 2
                return .startTag(name: name, attributes: attributes, selfClosing: true)
            }
            if bytes[position] == UInt8(ascii: ">") {
                position += 1
                return .startTag(name: name, attributes: attributes, selfClosing: false)
            }
            guard spaced else { throw Self.error("expected a space, '>' or '/>' in the tag <\(name)>", at: position) }
            let attributeName = try self.name()
            skipSpaces()
            guard position < bytes.count, bytes[position] == UInt8(ascii: "=") else {
                throw Self.error("the attribute '\(attributeName)' of <\(name)> has no value", at: position)
            }
            position += 1
            skipSpaces()
            attributes.append(SVGAttribute(name: attributeName, value: try attributeValue(of: attributeName)))
        }
    }

    private mutating func endTag() throws(ImageError) -> SVGToken {
        position += 2
        let name = try self.name()
        skipSpaces()
        guard position < bytes.count, bytes[position] == UInt8(ascii: ">") else {
            throw Self.error("the end tag </\(name)> is not closed with '>'", at: position)
        }
        position += 1
        return .endTag(name: name)
    }

    private mutating func processingInstruction() throws(ImageError) -> SVGToken {
        let start = position
        try find("?>", what: "processing instruction")
        let instruction = String(decoding: bytes[start..<position], as: UTF8.self).lowercased()
        position += 2
        // Bytes in another encoding would be read wrongly as UTF-8.
        if instruction.hasPrefix("<?xml "), let range = instruction.range(of: "encoding") {
            let declared = instruction[range.upperBound...].drop { $0 == " " || $0 == "=" || $0 == "\"" || $0 == "'" }
                .prefix { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }
            guard ["utf-8", "utf8", "us-ascii", "ascii"].contains(String(declared)) else {
                throw .badImageData("SVG: the document declares the encoding '\(declared.prefix(32))'; only UTF-8 SVG is read, convert it to UTF-8")
            }
        }
        return .dropped
    }

    private mutating func skip(past terminator: String, what: String) throws(ImageError) -> SVGToken {
        try find(terminator, what: what)
        position += terminator.utf8.count
        return .dropped
    }

    // MARK: Names and values

    /// An XML name: letters, digits and `_ : - .`, or any non-ASCII byte; not starting
    /// with a digit, `-` or `.`.
    mutating func name() throws(ImageError) -> String {
        let start = position
        while position < bytes.count, Self.isNameByte(bytes[position]) { position += 1 }
        guard position > start, !Self.isDigitOrPunctuation(bytes[start]) else {
            throw Self.error("expected a name", at: start)
        }
        return String(decoding: bytes[start..<position], as: UTF8.self)
    }

    private mutating func attributeValue(of attribute: String) throws(ImageError) -> String {
        guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") || bytes[position] == UInt8(ascii: "'") else {
            throw Self.error("the value of the attribute '\(attribute)' is not quoted", at: position)
        }
        let quote = bytes[position]
        position += 1
        var value = ""
        var start = position
        // XML reads literal white space in a value as spaces; white space written as a
        // character reference stays what it is.
        func literal(_ segment: ArraySlice<UInt8>) -> String {
            String(decoding: segment.map { Self.isSpace($0) ? UInt8(ascii: " ") : $0 }, as: UTF8.self)
        }
        while true {
            guard position < bytes.count else { throw Self.error("the value of the attribute '\(attribute)' is not closed", at: start) }
            let byte = bytes[position]
            if byte == quote { break }
            if byte == UInt8(ascii: "<") { throw Self.error("'<' in the value of the attribute '\(attribute)'", at: position) }
            if byte == UInt8(ascii: "&") {
                value += literal(bytes[start..<position])
                value += try reference()
                start = position
            } else {
                position += 1
            }
        }
        value += literal(bytes[start..<position])
        position += 1
        return value
    }

    /// Character data up to the next `<`, references decoded.
    private mutating func text() throws(ImageError) -> String {
        var value = ""
        var start = position
        while position < bytes.count, bytes[position] != UInt8(ascii: "<") {
            if bytes[position] == UInt8(ascii: "&") {
                value += String(decoding: bytes[start..<position], as: UTF8.self)
                value += try reference()
                start = position
            } else {
                position += 1
            }
        }
        return value + String(decoding: bytes[start..<position], as: UTF8.self)
    }

    /// The text of the reference at `position` (`&amp;`, `&#38;`, `&#x26;`, `&name;`).
    mutating func reference() throws(ImageError) -> String {
        let start = position
        position += 1
        while position < bytes.count, position - start < 64, bytes[position] != UInt8(ascii: ";") { position += 1 }
        guard position < bytes.count, bytes[position] == UInt8(ascii: ";") else {
            throw Self.error("'&' that does not start a reference (write it as &amp;)", at: start)
        }
        let name = String(decoding: bytes[(start + 1)..<position], as: UTF8.self)
        position += 1
        if let character = Self.predefined[name] { return character }
        if name.hasPrefix("#") { return String(try Self.character(reference: name, at: start)) }
        guard let value = entities[name] else {
            throw Self.error("the entity '&\(name.prefix(32));' is not defined in the document (external entities are never read)", at: start)
        }
        expanded += value.utf8.count
        guard expanded <= maxExpansion else {
            throw .badImageData("SVG: entity references expand the document by more than \(maxExpansion) bytes")
        }
        return value
    }

    static let predefined = ["lt": "<", "gt": ">", "amp": "&", "apos": "'", "quot": "\""]

    /// The character of a numeric reference (`#38`, `#x26`): one XML allows in a document.
    static func character(reference name: String, at offset: Int) throws(ImageError) -> Character {
        let digits = name.dropFirst()
        let code = digits.first == "x" ? UInt32(digits.dropFirst(), radix: 16) : UInt32(digits, radix: 10)
        guard let code, let scalar = Unicode.Scalar(code), code == 0x9 || code == 0xA || code == 0xD || code >= 0x20,
              code != 0xFFFE, code != 0xFFFF else {
            throw error("'&\(name.prefix(16));' is not a character XML allows", at: offset)
        }
        return Character(scalar)
    }

    // MARK: Bytes

    /// Whether the bytes at `position` start with `prefix`.
    func has(_ prefix: String) -> Bool {
        var index = position
        for byte in prefix.utf8 {
            guard index < bytes.count, bytes[index] == byte else { return false }
            index += 1
        }
        return true
    }

    /// Moves `position` to the next occurrence of `terminator`.
    mutating func find(_ terminator: String, what: String) throws(ImageError) {
        let start = position
        while position < bytes.count {
            if has(terminator) { return }
            position += 1
        }
        throw Self.error("the \(what) is not closed with '\(terminator)'", at: start)
    }

    /// Skips XML white space; whether there was any.
    @discardableResult
    mutating func skipSpaces() -> Bool {
        let start = position
        while position < bytes.count, Self.isSpace(bytes[position]) { position += 1 }
        return position > start
    }

    static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }

    static func isNameByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
        case UInt8(ascii: "_"), UInt8(ascii: ":"), UInt8(ascii: "-"), UInt8(ascii: "."): true
        default: byte >= 0x80
        }
    }

    private static func isDigitOrPunctuation(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
    }

    static func error(_ problem: String, at offset: Int) -> ImageError {
        .badImageData("SVG: \(problem) (at byte \(offset))")
    }
}
