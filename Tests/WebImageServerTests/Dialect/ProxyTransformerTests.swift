import Testing
import WebImage
import WebImageServer
import WebImageTestSupport

// The transformer the server hands to the image manager.
@Suite("Proxy transformer")
struct ProxyTransformerTests {
    @Test("S5 ProxyTransformer key: file-name safe, equal for equal meaning, distinct otherwise")
    func keys() throws {
        let parser = ProxyURLParser(keys: [])
        func key(_ options: String) throws -> String {
            ProxyTransformer(options: try parser.parse(path: "/_/\(options)/plain/http://h/a.jpg").options).key
        }
        #expect(try key("rs:fill:300:200/q:80") == key("q:80/w:300/h:200/rt:fill"))
        #expect(try key("rs:fill:300:200") == "proxy-rt:fill,w:300,h:200")
        #expect(try key("rs:fill:300:200") != key("rs:fill:300:201"))
        let odd = try key("cb:a%20b\u{00E9}\\x")
        #expect(odd == "proxy-cb:a%2520b%C3%A9%5Cx")
        #expect(!odd.contains("/") && !odd.contains(" "))
    }

    @Test("S5 raw: the plan leaves the image alone whatever else the URL asks")
    func raw() throws {
        let options = try ProxyURLParser(keys: []).parse(path: "/_/raw:1/rs:fill:10:10/bl:2/plain/http://h/a.jpg").options
        let plan = options.plan(for: PixelSize(width: 40, height: 30))
        #expect(plan.isIdentity && plan.outputSize == PixelSize(width: 40, height: 30))
        #expect(options.thumbnailPixelSize == nil && options.decodeHint(sourceSize: PixelSize(width: 4000, height: 3000)) == nil)
        let image = try TestImages.quadrants(width: 40, height: 30)
        #expect(try ProxyTransformer(options: options).transform(image).pixelSize == image.pixelSize)
    }
}
