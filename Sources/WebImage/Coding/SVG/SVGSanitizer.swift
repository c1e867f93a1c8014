import Foundation

/// Makes an SVG document safe to serve as an image: what could run code or load another
/// document is removed, shapes, gradients, filters, styles and references inside the
/// document stay.
///
/// The document is read as XML (``ImageError/badImageData(_:)`` when it is not well
/// formed, is not UTF-8, or its root is not `<svg>`) and written again, element by element:
///
/// - Removed with their content: `<script>`, `<foreignObject>`, `<iframe>`, `<form>`,
///   `<embed>`, `<object>`, `<link>`, `<audio>`, `<video>` and the like, whatever their
///   prefix (`<svg:script>`); every element in a namespace other than SVG's (XHTML,
///   MathML, editors' metadata); an animation of a reference or an event handler.
/// - Removed attributes: event handlers (`onload`, `OnClick`: any name starting with `on`),
///   `xml:base`, attributes in namespaces other than XLink's and XML's, and references
///   (`href`, `xlink:href`) other than `#id`, an `<a>`'s http(s) or relative link, or an
///   `<image>`'s `data:image/…`: no `javascript:`, no `<use>` of another file.
/// - CSS in `<style>`, `style` and presentation attributes loses `@import` rules and
///   `url(…)`s that leave the document (``SVGStyleSanitizer``).
/// - Comments, processing instructions (the XML declaration too) and the document type
///   declaration are left out. Its internal entities are expanded where they are
///   referenced, once, as text (no "billion laughs"); external entities are never read,
///   and a reference to one is an error.
/// - CDATA sections are written as escaped text, so nothing in them can close a tag.
///
/// Input larger than ``maxBytes``, output that would grow past it (entities), or
/// elements nested deeper than ``maxDepth`` are refused with
/// ``ImageError/badImageData(_:)``. The work is linear in the input's size and holds no
/// recursion, whatever the nesting.
///
/// ```swift
/// let safe = try SVGSanitizer().sanitize(untrustedSVG)
/// ```
public struct SVGSanitizer: Sendable, Hashable {
    /// The largest document read, and the largest written, in bytes. Default 32 MiB.
    public var maxBytes: Int
    /// The deepest nesting of elements read. Default 256.
    public var maxDepth: Int

    /// Creates a sanitiser with these bounds.
    public init(maxBytes: Int = 32 << 20, maxDepth: Int = 256) {
        self.maxBytes = maxBytes
        self.maxDepth = maxDepth
    }

    private struct OpenElement {
        var name: String
        var removed: Bool
    }

    /// `data`, an SVG document, without what could run code or load another document.
    public func sanitize(_ data: Data) throws(ImageError) -> Data {
        guard data.count <= maxBytes else {
            throw .badImageData("SVG: the document is \(data.count) bytes, more than the sanitiser's limit of \(maxBytes)")
        }
        var tokenizer = SVGTokenizer(bytes: Array(data), maxExpansion: maxBytes)
        var writer = SVGWriter(capacity: data.count)
        var namespaces = SVGNamespaces()
        var open: [OpenElement] = []
        // Elements open inside a removed one, itself included.
        var removedDepth = 0
        // The text of the `<style>` element being read.
        var style: String?
        var rootSeen = false
        var rootClosed = false
        while let token = try tokenizer.next() {
            switch token {
            case .dropped:
                continue
            case .text(let text):
                guard !open.isEmpty else {
                    guard text.allSatisfy(\.isWhitespace) else {
                        throw .badImageData("SVG: text outside the <svg> element ('\(text.prefix(32))')")
                    }
                    continue
                }
                guard removedDepth == 0 else { continue }
                if style != nil { style? += text } else { writer.text(text) }
            case .startTag(let name, let attributes, let selfClosing):
                guard !rootClosed else { throw .badImageData("SVG: the element <\(name.prefix(32))> follows the end of the <svg> element") }
                guard open.count < maxDepth else {
                    throw .badImageData("SVG: elements are nested more than \(maxDepth) deep, the sanitiser's limit")
                }
                namespaces.enter(attributes)
                let localName = SVGName.local(of: name).lowercased()
                let namespace = namespaces.resolve(prefix: SVGName.prefix(of: name))
                if !rootSeen {
                    guard localName == "svg", namespace == .none || namespace == .uri(SVGNamespaces.svg) else {
                        throw .badImageData("SVG: the root element is <\(name.prefix(32))>, not <svg>")
                    }
                    rootSeen = true
                }
                let removed = removedDepth > 0 || style != nil
                    || !Self.keepsElement(localName: localName, namespace: namespace, attributes: attributes)
                if removed {
                    removedDepth += 1
                } else {
                    let kept = Self.keptAttributes(attributes, of: localName, namespaces: namespaces)
                    writer.startTag(name, attributes: kept, selfClosing: selfClosing)
                    if localName == "style", !selfClosing { style = "" }
                }
                if selfClosing {
                    namespaces.leave()
                    if removed { removedDepth -= 1 }
                    rootClosed = open.isEmpty
                } else {
                    open.append(OpenElement(name: name, removed: removed))
                }
            case .endTag(let name):
                guard let element = open.popLast() else {
                    throw .badImageData("SVG: the end tag </\(name.prefix(32))> closes no element")
                }
                guard element.name == name else {
                    throw .badImageData("SVG: the end tag </\(name.prefix(32))> does not close <\(element.name.prefix(32))>")
                }
                namespaces.leave()
                if element.removed {
                    removedDepth -= 1
                } else {
                    if let css = style {
                        writer.text(SVGStyleSanitizer.sanitize(css))
                        style = nil
                    }
                    writer.endTag(name)
                }
                rootClosed = open.isEmpty
            }
            guard writer.count <= maxBytes else {
                throw .badImageData("SVG: the sanitised document would be more than the sanitiser's limit of \(maxBytes) bytes")
            }
        }
        guard rootSeen else { throw .badImageData("SVG: the document has no <svg> element") }
        if let element = open.last { throw .badImageData("SVG: the element <\(element.name.prefix(32))> is not closed") }
        return writer.data
    }
}
