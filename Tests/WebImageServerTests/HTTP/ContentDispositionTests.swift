import Foundation
import Testing
@testable import WebImage
@testable import WebImageServer

/// `Content-Disposition` as imgproxy writes it (httpheaders/cdv.go: the source's file name
/// or the URL's `filename`, the output's extension, `"` as `%22`), with names beyond ASCII
/// in RFC 6266's `filename*`.
@Suite("Content-Disposition")
struct ContentDispositionTests {
    /// A source path, and the header for a PNG of it.
    static let sources: [(String, String)] = [
        ("/photo.jpg", "inline; filename=\"photo.png\""),
        ("/dir/my%20holiday.jpeg", "inline; filename=\"my holiday.png\""),
        ("/no-extension", "inline; filename=\"no-extension.png\""),
        ("/", "inline; filename=\"image.png\""),
        ("/%D1%84%D0%BE%D1%82%D0%BE.jpg", "inline; filename=\"____.png\"; filename*=UTF-8''%D1%84%D0%BE%D1%82%D0%BE.png"),
        ("/K%C3%B6ln%20Dom.jpg", "inline; filename=\"K_ln Dom.png\"; filename*=UTF-8''K%C3%B6ln%20Dom.png"),
        ("/quote%22d.jpg", "inline; filename=\"quote%22d.png\""),
        ("/back%5Cslash.jpg", "inline; filename=\"backslash.png\""),
        ("/tab%09bed.jpg", "inline; filename=\"tabbed.png\""),
        ("/%F0%9F%93%B7.gif", "inline; filename=\"_.png\"; filename*=UTF-8''%F0%9F%93%B7.png"),
    ]

    @Test("the source's file name, decoded, with the output's extension; beyond ASCII also in filename*", arguments: sources)
    func fromSource(_ example: (String, String)) throws {
        let source = try #require(URL(string: "http://origin.test" + example.0))
        #expect(ContentDisposition(stem: ContentDisposition.stem(of: source)).value(for: .png) == example.1, "\(example.0)")
    }

    @Test("a given name and attachment: quotes, controls and non-ASCII kept out of the quoted string")
    func givenName() {
        #expect(ContentDisposition(stem: "my\"file", attachment: true).value(for: .webp) == "attachment; filename=\"my%22file.webp\"")
        #expect(ContentDisposition(stem: "a\u{7}b").value(for: .jpeg) == "inline; filename=\"a%07b.jpg\"")
        #expect(ContentDisposition(stem: "résumé").value(for: .avif) == "inline; filename=\"r_sum_.avif\"; filename*=UTF-8''r%C3%A9sum%C3%A9.avif")
    }

    @Test("a long name is cut at 100 characters")
    func longName() throws {
        let source = try #require(URL(string: "http://origin.test/" + String(repeating: "n", count: 300) + ".jpg"))
        #expect(ContentDisposition.stem(of: source).count == 100)
    }
}
