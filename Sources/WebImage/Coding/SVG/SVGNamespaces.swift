/// The XML namespaces in scope while an SVG document is read: each element's `xmlns` and
/// `xmlns:prefix` declarations, from the root to the element being read.
struct SVGNamespaces {
    /// The SVG namespace.
    static let svg = "http://www.w3.org/2000/svg"
    /// The XLink namespace of SVG 1.1's `xlink:href`.
    static let xlink = "http://www.w3.org/1999/xlink"
    /// The namespace the `xml` prefix is always bound to (`xml:space`, `xml:lang`).
    static let xml = "http://www.w3.org/XML/1998/namespace"

    /// What a name's prefix (or the default namespace, for a name without one) resolves to.
    enum Resolution: Equatable {
        /// No namespace: a name without a prefix where no default namespace is declared.
        case none
        /// The namespace of this URI.
        case uri(String)
        /// A prefix that no element in scope declares.
        case unbound
    }

    private var scopes: [[Substring: String]] = []

    /// Enters an element: its namespace declarations come into scope.
    mutating func enter(_ attributes: [SVGAttribute]) {
        var declared: [Substring: String] = [:]
        for attribute in attributes {
            if attribute.name == "xmlns" {
                declared[""] = attribute.value
            } else if attribute.prefix == "xmlns" {
                declared[attribute.localName] = attribute.value
            }
        }
        scopes.append(declared)
    }

    /// Leaves the element entered last.
    mutating func leave() {
        scopes.removeLast()
    }

    /// The namespace of an element or attribute with `prefix`; an attribute without a
    /// prefix is in no namespace, whatever the default.
    func resolve(prefix: Substring?, isAttribute: Bool = false) -> Resolution {
        if prefix == "xml" { return .uri(Self.xml) }
        if prefix == nil, isAttribute { return .none }
        let key = prefix ?? ""
        for scope in scopes.reversed() {
            if let uri = scope[key] { return uri.isEmpty ? (prefix == nil ? .none : .unbound) : .uri(uri) }
        }
        return prefix == nil ? .none : .unbound
    }
}
