import Foundation
import Testing
@testable import WebImage

/// A hostile SVG document: what the sanitiser must take out of it and what must stay.
struct HostileSVG: Sendable, CustomTestStringConvertible {
    let name: String
    let svg: String
    /// Text that must not be in the output.
    let removed: [String]
    /// Text that must be in the output, as the sanitiser writes it.
    let kept: [String]

    var testDescription: String { name }

    static func document(_ body: String, root: String = "") -> String {
        "<svg xmlns=\"http://www.w3.org/2000/svg\" xmlns:xlink=\"http://www.w3.org/1999/xlink\"\(root)>\(body)</svg>"
    }
}

@Suite("SVG sanitiser")
struct SVGSanitizerTests {
    let sanitizer = SVGSanitizer()

    func sanitized(_ svg: String) throws -> String {
        String(decoding: try sanitizer.sanitize(Data(svg.utf8)), as: UTF8.self)
    }

    static let hostile: [HostileSVG] = [
        HostileSVG(
            name: "script element, with CDATA",
            svg: HostileSVG.document("<rect width=\"1\" height=\"1\"/><script><![CDATA[alert(1)]]></script><script>alert(2)</script>"),
            removed: ["script", "alert"], kept: ["<rect width=\"1\" height=\"1\"/>"]
        ),
        HostileSVG(
            name: "prefixed and upper-case script",
            svg: "<svg:svg xmlns:svg=\"http://www.w3.org/2000/svg\"><svg:script>alert(1)</svg:script><SCRIPT>alert(2)</SCRIPT><svg:circle r=\"2\"/></svg:svg>",
            removed: ["script", "SCRIPT", "alert"], kept: ["<svg:circle r=\"2\"/>"]
        ),
        HostileSVG(
            name: "event handlers in any case",
            svg: HostileSVG.document("<rect onclick=\"alert(1)\" OnMouseOver=\"alert(2)\" width=\"5\"/>", root: " onload=\"alert(3)\""),
            removed: ["alert", "onclick", "OnMouseOver", "onload"], kept: ["<rect width=\"5\"/>"]
        ),
        HostileSVG(
            name: "javascript: links, entity-encoded and split by white space",
            svg: HostileSVG.document(
                "<a href=\"javascript:alert(1)\"><rect width=\"1\"/></a><a xlink:href=\" &#x6A;ava&#9;script:alert(2)\"/>"
                    + "<a href=\"JaVaScRiPt:alert(3)\"/><a href=\"&#10;javascript:alert(4)\"/><a href=\"vbscript:msgbox(1)\"/>"
            ),
            removed: ["javascript", "script", "alert", "msgbox"], kept: ["<a><rect width=\"1\"/></a>", "<a/>"]
        ),
        HostileSVG(
            name: "use of another document",
            svg: HostileSVG.document(
                "<defs><path id=\"icon\" d=\"M0 0h4v4z\"/></defs><use href=\"https://evil.example/sprite.svg#icon\"/>"
                    + "<use xlink:href=\"data:image/svg+xml;base64,PHN2Zy8+#x\"/><use href=\"#icon\" x=\"2\"/>"
            ),
            removed: ["evil.example", "data:"], kept: ["<path id=\"icon\" d=\"M0 0h4v4z\"/>", "<use/>", "<use href=\"#icon\" x=\"2\"/>"]
        ),
        HostileSVG(
            name: "foreignObject with HTML, iframe and form",
            svg: HostileSVG.document(
                "<foreignObject width=\"9\"><div xmlns=\"http://www.w3.org/1999/xhtml\"><iframe src=\"https://evil.example\"/>"
                    + "<form action=\"javascript:alert(1)\"><input type=\"submit\"/></form></div></foreignObject><circle r=\"3\"/>"
            ),
            removed: ["foreignObject", "div", "iframe", "form", "evil.example"], kept: ["<circle r=\"3\"/>"]
        ),
        HostileSVG(
            name: "elements of other namespaces",
            svg: HostileSVG.document(
                "<html:img xmlns:html=\"http://www.w3.org/1999/xhtml\" src=\"https://evil.example/t.png\"/><x:embed xmlns:x=\"urn:x\"/><undeclared:g/><g/>"
            ),
            removed: ["html:img", "evil.example", "embed", "undeclared"], kept: ["<g/>"]
        ),
        HostileSVG(
            name: "plug-ins, frames and links to stylesheets",
            svg: HostileSVG.document(
                "<iframe/><embed src=\"x.swf\"/><object data=\"x.pdf\"/><link rel=\"stylesheet\" href=\"https://evil.example/x.css\"/>"
                    + "<handler type=\"application/ecmascript\">alert(1)</handler><audio xlink:href=\"x.mp3\"/><g id=\"kept\"/>"
            ),
            removed: ["iframe", "embed", "object", "<link", "stylesheet", "handler", "alert", "audio"], kept: ["<g id=\"kept\"/>"]
        ),
        HostileSVG(
            name: "animations of references and handlers",
            svg: HostileSVG.document(
                "<a><animate attributeName=\"href\" values=\"javascript:alert(1)\"/><set attributeName=\"xlink:href\" to=\"javascript:alert(2)\"/>"
                    + "<set attributeName=\"onmouseover\" to=\"alert(3)\"/><animate attributeName=\"opacity\" from=\"0\" to=\"1\" dur=\"1s\"/></a>"
            ),
            removed: ["javascript", "alert", "href", "onmouseover"],
            kept: ["<animate attributeName=\"opacity\" from=\"0\" to=\"1\" dur=\"1s\"/>"]
        ),
        HostileSVG(
            name: "external images and embedded ones",
            svg: HostileSVG.document(
                "<image href=\"https://evil.example/track.png\" width=\"1\"/><image xlink:href=\"data:image/png;base64,AAAA\"/>"
                    + "<filter id=\"f\"><feImage href=\"//evil.example/x.svg\"/></filter>"
            ),
            removed: ["evil.example"],
            kept: ["<image width=\"1\"/>", "<image xlink:href=\"data:image/png;base64,AAAA\"/>", "<feImage/>"]
        ),
        HostileSVG(
            name: "stylesheet imports and external URLs",
            svg: HostileSVG.document(
                "<style>@import url(https://evil.example/a.css); @IMPORT 'b.css'; .a { fill: url(#g) } .b { background: URL( \"https://evil.example/t.png\" ) }</style>"
                    + "<rect class=\"a\" style=\"fill:url(https://evil.example/p.svg#p);stroke:red\"/><rect fill=\"url(#g)\" mask=\"url(other.svg#m)\"/>"
            ),
            removed: ["@import", "@IMPORT", "evil.example", "b.css", "other.svg"],
            kept: [".a { fill: url(#g) }", ".b { background: none }", "style=\"fill:none;stroke:red\"", "fill=\"url(#g)\" mask=\"none\""]
        ),
        HostileSVG(
            name: "CSS escapes and comments that would spell @import",
            svg: HostileSVG.document("<style>@\\69mport 'https://evil.example/a.css';</style><style>@im/**/port 'x.css';</style><rect style=\"background:u\\72l(https://evil.example/t.png)\"/>"),
            removed: ["69mport", "evil.example", "style=\""], kept: ["<style></style>", "<style>@im port 'x.css';</style>", "<rect/>"]
        ),
        HostileSVG(
            name: "CDATA that closes the style and opens a script",
            svg: HostileSVG.document("<style><![CDATA[</style><script>alert(1)</script>]]></style><text><![CDATA[<script>alert(2)</script>]]></text>"),
            removed: ["<script", "</style><script"], kept: ["&lt;/style&gt;&lt;script&gt;alert(1)", "<text>&lt;script&gt;alert(2)&lt;/script&gt;</text>"]
        ),
        HostileSVG(
            name: "comments and processing instructions",
            svg: "<?xml version=\"1.0\" encoding=\"UTF-8\"?><?xml-stylesheet href=\"https://evil.example/x.css\"?><!--><script>alert(1)</script>-->"
                + HostileSVG.document("<!-- <script>alert(2)</script> --><g/>"),
            removed: ["<?", "evil.example", "<!--", "script", "alert"], kept: ["<g/>"]
        ),
        HostileSVG(
            name: "xml:base and attributes of other namespaces",
            svg: HostileSVG.document("<a xml:base=\"https://evil.example/\" href=\"page.html\" xml:lang=\"en\" ev:event=\"click\" xmlns:ev=\"http://www.w3.org/2001/xml-events\"/>"),
            removed: ["xml:base", "evil.example", "ev:event"],
            kept: ["<a href=\"page.html\" xml:lang=\"en\" xmlns:ev=\"http://www.w3.org/2001/xml-events\"/>"]
        ),
        HostileSVG(
            name: "billion laughs: entities expand once, as text",
            svg: "<!DOCTYPE svg [<!ENTITY lol \"lol\"><!ENTITY lol2 \"&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;\">"
                + "<!ENTITY lol3 \"&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;\">]>"
                + HostileSVG.document("<text>&lol3;</text>"),
            removed: ["DOCTYPE", "ENTITY", "lollol"], kept: ["<text>&amp;lol2;&amp;lol2;"]
        ),
    ]

    @Test("each hostile SVG loses what is dangerous and keeps the rest", arguments: hostile)
    func hostileDocuments(_ sample: HostileSVG) throws {
        let output = try sanitized(sample.svg)
        for text in sample.removed { #expect(!output.contains(text), "'\(text)' left in \(output)") }
        for text in sample.kept { #expect(output.contains(text), "'\(text)' missing from \(output)") }
        #expect(output.hasPrefix("<svg") && ImageFormat(data: Data(output.utf8)) == .svg, "\(output)")
        // The output is a fixed point: sanitising it again changes nothing.
        #expect(try sanitized(output) == output)
    }

    /// imgproxy's own sanitiser test (imgproxy/imgproxy, processing/svg/svg_test.go with
    /// testdata/test1.svg and test1.sanitized.svg): the same input; the output differs where
    /// this sanitiser is stricter — `<foreignObject>` goes with its content, and an
    /// attribute-free `<use>` is written as imgproxy writes it.
    @Test("imgproxy's sanitiser test document")
    func imgproxyTestDocument() throws {
        let input = """
            <svg width="200" height="100" xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" onload="alert(3)">
              <rect onclick="alert(4)" width="190" height="90" style="fill:rgb(0,0,0);stroke-width:5;stroke:rgb(255,255,255)" />
              <script>
                <![CDATA[
                alert(2);
                ]]>
              </script><use xlink:href="data:application/xml;base64,PHN2ZyBpZD0ndGVzdCcgeG1sbnM9J2h0dHA6Ly93d3cudzMub3JnLzIwMDAvc3ZnJyB4bWxuczp4bGluaz0naHR0cDovL3d3dy53My5vcmcvMTk5OS94bGluaycgd2lkdGg9JzEwMCcgaGVpZ2h0PScxMDAnPgo8aW1hZ2UgaHJlZj0iMSIgb25lcnJvcj0iYWxlcnQoMSkiIC8+Cjwvc3ZnPg==#test"/>
              <foreignObject>
                <div xmlns="http://www.w3.org/1999/xhtml"><form action="javascript:alert(5)">
                  <input type="submit" value="Submit" />
                </form></div>
              </foreignObject>
              <a href="javascript:alert(6)"><rect width="10" height="10"/></a>
              <a href="https://example.com/"><rect width="10" height="10"/></a>
              <image href="data:image/gif;base64,R0lGODlhAQABAAAAACH5BAEAAAAALAAAAAABAAEAAAICTAEAOw=="/>
            </svg>
            """
        let expected = """
            <svg width="200" height="100" xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink">
              <rect width="190" height="90" style="fill:rgb(0,0,0);stroke-width:5;stroke:rgb(255,255,255)"/>
              <use/>
              \("")
              <a><rect width="10" height="10"/></a>
              <a href="https://example.com/"><rect width="10" height="10"/></a>
              <image href="data:image/gif;base64,R0lGODlhAQABAAAAACH5BAEAAAAALAAAAAABAAEAAAICTAEAOw=="/>
            </svg>
            """
        #expect(try sanitized(input) == expected)
    }

    /// imgproxy's table of href values (imgproxy/imgproxy, processing/svg/href_test.go),
    /// checked on `<a>` (its generic elements) and `<image>`; where imgproxy keeps an
    /// `<image>`'s http(s) or relative reference, this sanitiser drops it (no external load).
    static let references: [(value: String, onLink: Bool, onImage: Bool)] = [
        ("", true, true),
        ("#test", true, true),
        ("foo/bar.svg", true, false),
        ("/foo/bar.svg", true, false),
        ("//evil.com/x", true, false),
        ("https://example.com", true, false),
        ("http://example.com", true, false),
        ("javascript:alert(1)", false, false),
        ("JavaScript:alert(1)", false, false),
        ("jAvAsCriPt:alert(1)", false, false),
        ("\njavascript:alert(1)", false, false),
        ("vbscript:msgbox(1)", false, false),
        ("data:text/html,<script>alert(1)</script>", false, false),
        ("mailto:test@example.com", false, false),
        ("ftp://example.com/file", false, false),
        ("data:image/png;base64,AAAA", false, true),
    ]

    @Test("imgproxy's href table, on <a> and <image>")
    func referenceTable() {
        for (value, onLink, onImage) in Self.references {
            #expect(SVGSanitizer.keepsReference(value, in: "a") == onLink, "a href=\(value.debugDescription)")
            #expect(SVGSanitizer.keepsReference(value, in: "image") == onImage, "image href=\(value.debugDescription)")
            #expect(SVGSanitizer.keepsReference(value, in: "use") == (value.isEmpty || value.hasPrefix("#")), "use href=\(value.debugDescription)")
        }
    }

    @Test("entity-encoded schemes: character references are decoded, an undefined entity is refused")
    func encodedSchemes() throws {
        for encoded in ["jav&#97;script:alert(1)", "jav&#x61;script:alert(1)"] {
            let output = try sanitized(HostileSVG.document("<a href=\"\(encoded)\"/>"))
            #expect(output == HostileSVG.document("<a/>"), "\(encoded): \(output)")
        }
        // HTML's &colon; is no XML entity: the document is not well formed.
        #expect(throws: ImageError.self) { try sanitized(HostileSVG.document("<a href=\"javascript&colon;alert(1)\"/>")) }
    }

    @Test("a drawing keeps its shapes, gradients, references, styles and text exactly")
    func benignDocumentUnchanged() throws {
        let drawing = HostileSVG.document(
            "<defs><linearGradient id=\"g\" x1=\"0\" x2=\"1\"><stop offset=\"0\" stop-color=\"#f00\"/><stop offset=\"1\" stop-color=\"#00f\"/></linearGradient>"
                + "<clipPath id=\"c\"><circle cx=\"5\" cy=\"5\" r=\"5\"/></clipPath><symbol id=\"s\"><path d=\"M0 0L10 10\"/></symbol></defs>"
                + "<style>.x { stroke: url(#g); stroke-width: 2 }</style>"
                + "<rect width=\"10\" height=\"10\" fill=\"url(#g)\" clip-path=\"url(#c)\" style=\"opacity:0.5\" transform=\"rotate(45 5 5)\"/>"
                + "<use xlink:href=\"#s\" class=\"x\"/><text x=\"1\" y=\"9\" xml:space=\"preserve\">A &amp; B &lt; C</text>"
                + "<a href=\"https://example.com/\" target=\"_blank\"><image href=\"data:image/png;base64,AAAA\" width=\"2\" height=\"2\"/></a>",
            root: " viewBox=\"0 0 10 10\""
        )
        #expect(try sanitized(drawing) == drawing)
    }

    @Test("internal entities are expanded, as Illustrator's namespace entities need")
    func internalEntities() throws {
        let svg = "<?xml version=\"1.0\"?><!DOCTYPE svg PUBLIC \"-//W3C//DTD SVG 1.1//EN\" \"http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd\" ["
            + "<!ENTITY ns_svg \"http://www.w3.org/2000/svg\"><!ENTITY % local SYSTEM \"x.dtd\"><!-- ] --><!ATTLIST svg a CDATA \"]\">]>"
            + "<svg xmlns=\"&ns_svg;\"><rect width=\"&#49;\"/></svg>"
        #expect(try sanitized(svg) == "<svg xmlns=\"http://www.w3.org/2000/svg\"><rect width=\"1\"/></svg>")
    }

    static let refused: [(name: String, svg: String)] = [
        ("an external entity", "<!DOCTYPE svg [<!ENTITY xxe SYSTEM \"file:///etc/passwd\">]><svg xmlns=\"http://www.w3.org/2000/svg\"><text>&xxe;</text></svg>"),
        ("a parameter entity used in the document", "<!DOCTYPE svg [<!ENTITY % p \"x\">]><svg><text>&p;</text></svg>"),
        ("another encoding", "<?xml version=\"1.0\" encoding=\"UTF-16\"?><svg/>"),
        ("a root that is not svg", "<html><svg/></html>"),
        ("mismatched tags", "<svg><g></svg></g>"),
        ("an unclosed element", "<svg><g>"),
        ("an unquoted attribute", "<svg width=10/>"),
        ("'<' in an attribute", "<svg id=\"<x\"/>"),
        ("a bare '&'", "<svg><text>a & b</text></svg>"),
        ("a second root", "<svg/><svg/>"),
        ("text after the root", "<svg/>text"),
        ("no svg at all", "   "),
        ("a character XML forbids", "<svg><text>&#0;</text></svg>"),
        ("an unclosed comment", "<svg><!-- </svg>"),
        ("an unclosed CDATA section", "<svg><![CDATA[ </svg>"),
    ]

    @Test("malformed and unsafe documents are refused as bad image data")
    func refusedDocuments() {
        for (name, svg) in Self.refused {
            do {
                _ = try sanitizer.sanitize(Data(svg.utf8))
                Issue.record("\(name) was accepted")
            } catch {
                guard case .badImageData(let reason) = error else {
                    Issue.record("\(name): \(error)")
                    continue
                }
                #expect(reason.hasPrefix("SVG: "), "\(name): \(reason)")
            }
        }
    }

    @Test("the bounds: bytes read, nesting, and entity expansion")
    func bounds() throws {
        let deep = "<svg>" + String(repeating: "<g>", count: 300) + String(repeating: "</g>", count: 300) + "</svg>"
        #expect(throws: ImageError.self) { try sanitizer.sanitize(Data(deep.utf8)) }
        #expect(throws: Never.self) { try SVGSanitizer(maxDepth: 400).sanitize(Data(deep.utf8)) }

        let small = SVGSanitizer(maxBytes: 1000)
        #expect(throws: ImageError.self) { try small.sanitize(Data(("<svg>" + String(repeating: " ", count: 1000) + "</svg>").utf8)) }
        // 100 references to a 100-byte entity add 10 000 bytes to a 300-byte document.
        let expanding = "<!DOCTYPE svg [<!ENTITY e \"" + String(repeating: "x", count: 100) + "\">]><svg><text>"
            + String(repeating: "&e;", count: 100) + "</text></svg>"
        #expect(throws: ImageError.self) { try small.sanitize(Data(expanding.utf8)) }
        #expect(try SVGSanitizer().sanitize(Data(expanding.utf8)).count == "<svg><text></text></svg>".utf8.count + 10_000)
    }

    @Test("the size an SVG declares: width and height in CSS units, else its viewBox")
    func declaredSize() {
        let cases: [(String, PixelSize?)] = [
            ("<svg width=\"40\" height=\"20\"/>", PixelSize(width: 40, height: 20)),
            ("<?xml version=\"1.0\"?><!-- x --><svg width=\"40px\" height=\"1in\"/>", PixelSize(width: 40, height: 96)),
            ("<svg width=\"72pt\" height=\"2.54cm\"/>", PixelSize(width: 96, height: 96)),
            ("<svg width=\"100%\" height=\"50%\" viewBox=\"0 0 300 150\"/>", PixelSize(width: 300, height: 150)),
            ("<svg viewBox=\"-5,-5,64,32\"/>", PixelSize(width: 64, height: 32)),
            ("<svg width=\"10\"/>", nil),
            ("<svg width=\"-1\" height=\"3em\"/>", nil),
            ("not xml", nil),
        ]
        for (svg, size) in cases {
            #expect(SVGDocumentSize.of(Data(svg.utf8)) == size, "\(svg)")
        }
    }
}
