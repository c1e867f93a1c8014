extension SVGTokenizer {
    /// Reads `<!DOCTYPE …>`, keeping the internal general entities it declares
    /// (``entities``); the declaration itself is never served.
    mutating func doctype() throws(ImageError) -> SVGToken {
        let start = position
        position += 9
        while true {
            guard position < bytes.count else { throw Self.error("the document type declaration is not closed", at: start) }
            switch bytes[position] {
            case UInt8(ascii: "\""), UInt8(ascii: "'"): try skipQuoted()
            case UInt8(ascii: "["):
                position += 1
                try internalSubset()
            case UInt8(ascii: ">"):
                position += 1
                return .dropped
            default: position += 1
            }
        }
    }

    /// The declarations between `[` and `]`.
    private mutating func internalSubset() throws(ImageError) {
        let start = position
        while true {
            skipSpaces()
            guard position < bytes.count else { throw Self.error("the internal subset of the document type is not closed with ']'", at: start) }
            if bytes[position] == UInt8(ascii: "]") {
                position += 1
                return
            }
            if has("<!ENTITY") {
                position += 8
                try entityDeclaration()
            } else if has("<!--") {
                position += 4
                try find("-->", what: "comment")
                position += 3
            } else if has("<?") {
                try find("?>", what: "processing instruction")
                position += 2
            } else if has("<!") {
                try skipDeclaration()
            } else if bytes[position] == UInt8(ascii: "%") {
                // A parameter entity reference: parameter entities are never defined.
                position += 1
                try find(";", what: "parameter entity reference")
                position += 1
            } else {
                throw Self.error("unexpected text in the internal subset of the document type", at: position)
            }
        }
    }

    /// `<!ENTITY name "value">` after `<!ENTITY`: defines `name` when the value is internal;
    /// a parameter entity (`% name`) or an external one (`SYSTEM`, `PUBLIC`) is skipped.
    private mutating func entityDeclaration() throws(ImageError) {
        guard skipSpaces() else { throw Self.error("expected a space after <!ENTITY", at: position) }
        if position < bytes.count, bytes[position] == UInt8(ascii: "%") { return try skipDeclaration() }
        let name = try self.name()
        skipSpaces()
        guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") || bytes[position] == UInt8(ascii: "'") else {
            return try skipDeclaration()
        }
        let value = try entityValue()
        skipSpaces()
        guard position < bytes.count, bytes[position] == UInt8(ascii: ">") else {
            throw Self.error("the declaration of the entity '\(name)' is not closed with '>'", at: position)
        }
        position += 1
        // The first declaration of an entity is the binding one.
        if entities[name] == nil { entities[name] = value }
    }

    /// A quoted entity value: character references and the predefined entities decoded,
    /// any other reference kept as its literal text, so no entity's value holds another's.
    private mutating func entityValue() throws(ImageError) -> String {
        let quote = bytes[position]
        position += 1
        var value = ""
        var start = position
        while true {
            guard position < bytes.count else { throw Self.error("an entity value is not closed", at: start) }
            let byte = bytes[position]
            if byte == quote { break }
            if byte == UInt8(ascii: "&"), let decoded = try predefinedOrCharacterReference() {
                value += String(decoding: bytes[start..<position], as: UTF8.self) + decoded
                skipReference()
                start = position
            } else {
                position += 1
            }
        }
        value += String(decoding: bytes[start..<position], as: UTF8.self)
        position += 1
        return value
    }

    /// The text of a predefined or numeric reference at `position`; `nil` for any other.
    private func predefinedOrCharacterReference() throws(ImageError) -> String? {
        var end = position + 1
        while end < bytes.count, end - position < 64, bytes[end] != UInt8(ascii: ";") { end += 1 }
        guard end < bytes.count, bytes[end] == UInt8(ascii: ";") else { return nil }
        let name = String(decoding: bytes[(position + 1)..<end], as: UTF8.self)
        if let character = Self.predefined[name] { return character }
        return name.hasPrefix("#") ? String(try Self.character(reference: name, at: position)) : nil
    }

    private mutating func skipReference() {
        while position < bytes.count, bytes[position] != UInt8(ascii: ";") { position += 1 }
        position += 1
    }

    /// Skips a markup declaration up to its closing `>`, quoted strings included.
    private mutating func skipDeclaration() throws(ImageError) {
        let start = position
        while position < bytes.count {
            switch bytes[position] {
            case UInt8(ascii: "\""), UInt8(ascii: "'"): try skipQuoted()
            case UInt8(ascii: ">"):
                position += 1
                return
            default: position += 1
            }
        }
        throw Self.error("a declaration of the document type is not closed with '>'", at: start)
    }

    private mutating func skipQuoted() throws(ImageError) {
        let quote = bytes[position]
        let start = position
        position += 1
        while position < bytes.count, bytes[position] != quote { position += 1 }
        guard position < bytes.count else { throw Self.error("a quoted string of the document type is not closed", at: start) }
        position += 1
    }
}
