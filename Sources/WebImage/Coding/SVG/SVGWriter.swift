import Foundation

/// Writes an SVG document's markup as UTF-8, escaping text and attribute values so that
/// nothing in them can read as markup.
struct SVGWriter {
    private var bytes: [UInt8] = []

    init(capacity: Int) {
        bytes.reserveCapacity(capacity)
    }

    /// The bytes written so far.
    var count: Int { bytes.count }

    /// The document written.
    var data: Data { Data(bytes) }

    /// `<name attributes…>`, or `<name …/>` when `selfClosing`.
    mutating func startTag(_ name: String, attributes: [SVGAttribute], selfClosing: Bool) {
        bytes.append(UInt8(ascii: "<"))
        bytes.append(contentsOf: name.utf8)
        for attribute in attributes {
            bytes.append(UInt8(ascii: " "))
            bytes.append(contentsOf: attribute.name.utf8)
            bytes.append(contentsOf: "=\"".utf8)
            for scalar in attribute.value.unicodeScalars {
                switch scalar {
                case "&": bytes.append(contentsOf: "&amp;".utf8)
                case "<": bytes.append(contentsOf: "&lt;".utf8)
                case "\"": bytes.append(contentsOf: "&quot;".utf8)
                // Written as references, white space in a value is not read as a space.
                case "\t": bytes.append(contentsOf: "&#9;".utf8)
                case "\n": bytes.append(contentsOf: "&#10;".utf8)
                case "\r": bytes.append(contentsOf: "&#13;".utf8)
                default: bytes.append(contentsOf: String(scalar).utf8)
                }
            }
            bytes.append(UInt8(ascii: "\""))
        }
        if selfClosing { bytes.append(UInt8(ascii: "/")) }
        bytes.append(UInt8(ascii: ">"))
    }

    /// `</name>`.
    mutating func endTag(_ name: String) {
        bytes.append(contentsOf: "</".utf8)
        bytes.append(contentsOf: name.utf8)
        bytes.append(UInt8(ascii: ">"))
    }

    /// Character data, with `&`, `<` and `>` escaped.
    mutating func text(_ text: String) {
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "&"): bytes.append(contentsOf: "&amp;".utf8)
            case UInt8(ascii: "<"): bytes.append(contentsOf: "&lt;".utf8)
            case UInt8(ascii: ">"): bytes.append(contentsOf: "&gt;".utf8)
            default: bytes.append(byte)
            }
        }
    }
}
