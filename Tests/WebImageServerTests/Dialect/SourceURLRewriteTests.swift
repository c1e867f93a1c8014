import Testing
@testable import WebImageServer

@Suite("Source URL rewrites")
struct SourceURLRewriteTests {
    @Test("a pattern matches a prefix; * takes the longest run without '/' that lets the rest match; $n and ${n} expand")
    func wildcardPrefixes() throws {
        let rules = try SourceURLRewrite.replacements(from: "s3://old-*/=https://$1.example.com/;http://*.cdn/*=https://cdn/${2}/${1}")
        let rewrite = SourceURLRewrite(replacements: rules)
        #expect(rewrite.apply(to: "s3://old-photos/a/b.jpg") == "https://photos.example.com/a/b.jpg")
        #expect(rewrite.apply(to: "s3://new-photos/a.jpg") == "s3://new-photos/a.jpg")
        // The second * is greedy within its segment; the rest of the URL follows the replacement.
        #expect(rewrite.apply(to: "http://a.b.cdn/x.jpg") == "https://cdn/x.jpg/a.b")
        // Go's Expand: $$ is a dollar, a name that is no group number expands to nothing, a lone $ stays.
        let odd = SourceURLRewrite(replacements: [SourceURLRewrite.Replacement(pattern: "x:", replacement: "$$-$name-${9}-$")])
        #expect(odd.apply(to: "x:rest") == "$---$rest")
    }

    @Test("the base URL goes in front of a URL that does not start with it, after the replacements")
    func baseURL() {
        let rewrite = SourceURLRewrite(replacements: [SourceURLRewrite.Replacement(pattern: "img:", replacement: "")], baseURL: "https://cdn.example.com/")
        #expect(rewrite.apply(to: "img:a.jpg") == "https://cdn.example.com/a.jpg")
        #expect(rewrite.apply(to: "https://cdn.example.com/b.jpg") == "https://cdn.example.com/b.jpg")
        #expect(SourceURLRewrite().isEmpty && !rewrite.isEmpty)
    }

    @Test("a replacement list that is not pattern=replacement pairs is refused, naming the pair")
    func malformedList() {
        #expect { try SourceURLRewrite.replacements(from: "a=b;nonsense") } throws: { error in
            (error as? ServerConfigError)?.message.contains("'nonsense'") == true
        }
    }
}
