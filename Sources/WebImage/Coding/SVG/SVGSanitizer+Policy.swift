import Foundation

/// What ``SVGSanitizer`` keeps of each element and attribute.
extension SVGSanitizer {
    /// Elements removed with everything in them, by local name (any prefix), lower-cased:
    /// scripts and event handlers, HTML islands, forms, frames, plug-ins, and elements that
    /// load other documents or media.
    static let removedElements: Set<String> = [
        "script", "handler", "listener", "foreignobject", "iframe", "frame", "frameset", "form", "embed", "object",
        "applet", "link", "meta", "base", "audio", "video", "portal",
    ]

    /// SMIL animations: removed when they animate a reference or an event handler (`<set
    /// attributeName="href" to="javascript:…">`).
    static let animationElements: Set<String> = ["animate", "set", "animatetransform", "animatemotion", "animatecolor"]

    /// Whether an element is kept: in the SVG namespace (or none), not one of
    /// ``removedElements``, and not an animation of a reference or handler.
    static func keepsElement(localName: String, namespace: SVGNamespaces.Resolution, attributes: [SVGAttribute]) -> Bool {
        switch namespace {
        case .none: break
        case .uri(let uri) where uri == SVGNamespaces.svg: break
        default: return false
        }
        if removedElements.contains(localName) { return false }
        if animationElements.contains(localName) {
            let animated = attributes.first { $0.localName.lowercased() == "attributename" }.map { SVGName.local(of: $0.value).lowercased() }
            if let animated, animated == "href" || animated.hasPrefix("on") { return false }
        }
        return true
    }

    /// The attributes of the element `localName` that are kept, some with their value made
    /// safe:
    /// - namespace declarations are kept;
    /// - an attribute in a namespace other than XLink's or XML's is dropped, and so is
    ///   `xml:base`;
    /// - event handlers (any name starting with `on`, in any case) are dropped;
    /// - a reference (`href`, `xlink:href`) is kept when ``keepsReference(_:in:)`` says so;
    /// - `style`, and any value with a function in it (`fill="url(…)"`), goes through
    ///   ``SVGStyleSanitizer``; one left empty is dropped.
    static func keptAttributes(_ attributes: [SVGAttribute], of localName: String, namespaces: SVGNamespaces) -> [SVGAttribute] {
        attributes.compactMap { attribute -> SVGAttribute? in
            if attribute.name == "xmlns" || attribute.prefix == "xmlns" { return attribute }
            let local = attribute.localName.lowercased()
            switch namespaces.resolve(prefix: attribute.prefix, isAttribute: true) {
            case .none: break
            case .uri(let uri) where uri == SVGNamespaces.xlink: break
            case .uri(let uri) where uri == SVGNamespaces.xml && local != "base": break
            default: return nil
            }
            if local.hasPrefix("on") { return nil }
            if local == "href" { return keepsReference(attribute.value, in: localName) ? attribute : nil }
            guard local == "style" || attribute.value.contains("(") || attribute.value.contains("\\") else { return attribute }
            var safe = attribute
            safe.value = SVGStyleSanitizer.sanitize(attribute.value)
            return safe.value.trimmingCharacters(in: .whitespaces).isEmpty && !attribute.value.isEmpty ? nil : safe
        }
    }

    /// Whether the reference `value` of an `href` on the element `localName` is kept:
    /// - an empty one, and one to an element of the same document (`#id`), always;
    /// - on `<a>`, a link that navigates: http(s), or relative to the SVG's own address;
    /// - on `<image>` and `<feImage>`, an embedded image (`data:image/…`);
    /// - nothing else: `javascript:` and every other scheme, and any reference that would
    ///   load another document (`<use href="other.svg#icon">`, an external `<image>`).
    ///
    /// The scheme is read as a browser reads it: references decoded, tabs and line breaks
    /// anywhere and control characters and spaces around it ignored, in any case.
    static func keepsReference(_ value: String, in localName: String) -> Bool {
        let target = String(value.unicodeScalars.filter { $0 != "\t" && $0 != "\n" && $0 != "\r" })
            .trimmingCharacters(in: CharacterSet(charactersIn: "\u{0}"..."\u{20}"))
        if target.isEmpty || target.hasPrefix("#") { return true }
        switch localName {
        case "a":
            guard let scheme = scheme(of: target) else { return true }
            return scheme == "http" || scheme == "https"
        case "image", "feimage":
            return target.lowercased().hasPrefix("data:image/")
        default:
            return false
        }
    }

    /// The lower-cased scheme of a URL reference (`javascript` of `JavaScript:alert(1)`);
    /// `nil` for a relative one.
    static func scheme(of reference: String) -> String? {
        guard let first = reference.unicodeScalars.first, first.isASCII, first.properties.isAlphabetic else {
            return nil
        }
        var scheme = ""
        for scalar in reference.unicodeScalars {
            if scalar == ":" { return scheme.lowercased() }
            guard scalar.isASCII, scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || "+.-".unicodeScalars.contains(scalar) else {
                return nil
            }
            scheme.unicodeScalars.append(scalar)
        }
        return nil
    }
}
