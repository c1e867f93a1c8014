/// One piece of an SVG document as ``SVGTokenizer`` reads it.
enum SVGToken: Equatable {
    /// Character data, its references decoded (from text or a CDATA section alike).
    case text(String)
    /// `<name attributes…>`, or `<name …/>` when `selfClosing`.
    case startTag(name: String, attributes: [SVGAttribute], selfClosing: Bool)
    /// `</name>`.
    case endTag(name: String)
    /// A comment, a processing instruction (the XML declaration among them) or the
    /// document type declaration: markup that is never served.
    case dropped
}

/// An attribute of a start tag: its qualified name as written and its value with the
/// references decoded.
struct SVGAttribute: Equatable {
    var name: String
    var value: String

    /// The part of the name after its prefix (`href` of `xlink:href`).
    var localName: Substring { SVGName.local(of: name) }

    /// The prefix of the name, if it has one (`xlink` of `xlink:href`).
    var prefix: Substring? { SVGName.prefix(of: name) }
}

/// The parts of an XML qualified name such as `svg:script` or `xlink:href`.
enum SVGName {
    /// The part after the prefix (`script` of `svg:script`); the whole name without one.
    static func local(of name: String) -> Substring {
        guard let colon = name.firstIndex(of: ":") else { return Substring(name) }
        return name[name.index(after: colon)...]
    }

    /// The prefix (`svg` of `svg:script`), if there is one.
    static func prefix(of name: String) -> Substring? {
        guard let colon = name.firstIndex(of: ":") else { return nil }
        return name[..<colon]
    }
}
