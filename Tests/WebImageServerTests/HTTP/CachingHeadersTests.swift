import Foundation
import Testing
import WebImage
@testable import WebImageServer

/// The validators answered and the conditions sent on to sources, with the rows of
/// imgproxy's own tables (`httpheaders/conditionalheaders/request_test.go`, v4):
/// `TestInjectImageRequestHeaders` and `TestInjectUserResponseHeaders`.
@Suite("Caching headers: validators passed through, conditions sent on")
struct CachingHeadersTests {
    static let buster = Date(timeIntervalSince1970: 1_577_836_800) // 2020-01-01T00:00:00Z
    static let afterBuster = HTTPDate.string(from: buster.addingTimeInterval(3600))
    static let beforeBuster = HTTPDate.string(from: buster.addingTimeInterval(-3600))
    static func wrapped(_ tag: String, _ buster: String = "buster") -> String { buster + "/" + Base64URL.encode(tag.utf8) }

    struct ConditionRow: Sendable, CustomTestStringConvertible {
        let name: String
        var ifModifiedSince: String?
        var ifNoneMatch: String?
        var useLastModified = false
        var lastModifiedBuster: Date?
        var useETag = false
        var etagBuster: String?
        /// What reaches the source: `nil` for no header.
        var sentIfModifiedSince: String?
        var sentIfNoneMatch: String?
        var testDescription: String { name }
    }

    static let conditionRows: [ConditionRow] = [
        ConditionRow(name: "all disabled", ifModifiedSince: afterBuster, ifNoneMatch: "etag1"),
        ConditionRow(name: "last modified enabled", ifModifiedSince: afterBuster, useLastModified: true, sentIfModifiedSince: afterBuster),
        ConditionRow(name: "etag enabled", ifNoneMatch: "etag1", useETag: true, sentIfNoneMatch: "etag1"),
        ConditionRow(
            name: "etag/lm enabled with no buster", ifModifiedSince: afterBuster, ifNoneMatch: "etag1", useLastModified: true, useETag: true,
            sentIfModifiedSince: afterBuster, sentIfNoneMatch: "etag1"
        ),
        ConditionRow(
            name: "last modified after buster", ifModifiedSince: afterBuster, useLastModified: true, lastModifiedBuster: buster,
            sentIfModifiedSince: afterBuster
        ),
        ConditionRow(name: "last modified before buster", ifModifiedSince: beforeBuster, useLastModified: true, lastModifiedBuster: buster),
        ConditionRow(name: "last modified enabled with buster, invalid header", ifModifiedSince: "not-a-time", useLastModified: true, lastModifiedBuster: buster),
        ConditionRow(name: "etag buster", ifNoneMatch: wrapped("etag1"), useETag: true, etagBuster: "buster", sentIfNoneMatch: "etag1"),
        ConditionRow(
            name: "both enabled, but last modified buster check fails, etag still works", ifModifiedSince: beforeBuster,
            ifNoneMatch: wrapped("etag1"), useLastModified: true, lastModifiedBuster: buster, useETag: true, etagBuster: "buster",
            sentIfNoneMatch: "etag1"
        ),
        ConditionRow(
            name: "both enabled, if-none-match with invalid base64", ifModifiedSince: afterBuster, ifNoneMatch: "buster/@@@",
            useLastModified: true, lastModifiedBuster: buster, useETag: true, etagBuster: "buster"
        ),
        ConditionRow(
            name: "both enabled, but etag buster different", ifModifiedSince: afterBuster, ifNoneMatch: wrapped("etag1"),
            useLastModified: true, lastModifiedBuster: buster, useETag: true, etagBuster: "different-buster"
        ),
        ConditionRow(
            name: "both enabled, but etag with no buster", ifModifiedSince: afterBuster, ifNoneMatch: "W/etag1",
            useLastModified: true, lastModifiedBuster: buster, useETag: true, etagBuster: "buster"
        ),
        // Served ETags are quoted: the quotes go before the buster is looked for.
        ConditionRow(name: "quoted etag buster", ifNoneMatch: "\"" + wrapped("\"etag1\"") + "\"", useETag: true, etagBuster: "buster", sentIfNoneMatch: "\"etag1\""),
    ]

    @Test("conditions sent on to the source (imgproxy's TestInjectImageRequestHeaders)", arguments: conditionRows)
    func conditions(_ row: ConditionRow) {
        let caching = CachingHeaders(
            useETag: row.useETag, etagBuster: row.etagBuster, useLastModified: row.useLastModified,
            lastModifiedBuster: row.lastModifiedBuster, validators: .source
        )
        let sent = caching.forwardedConditions(ifNoneMatch: row.ifNoneMatch, ifModifiedSince: row.ifModifiedSince)
        #expect(sent?.ifModifiedSince == row.sentIfModifiedSince)
        #expect(sent?.ifNoneMatch == row.sentIfNoneMatch)
    }

    @Test("nothing is sent on when the validators are the served bytes'")
    func noConditionsForVariantValidators() {
        let caching = CachingHeaders(validators: .variant)
        #expect(caching.forwardedConditions(ifNoneMatch: "\"a\"", ifModifiedSince: Self.afterBuster) == nil)
    }

    struct ResponseRow: Sendable, CustomTestStringConvertible {
        let name: String
        var sourceETag: String?
        var sourceLastModified: String?
        var useLastModified = false
        var lastModifiedBuster: Date?
        var useETag = false
        var etagBuster: String?
        var wantLastModified: String?
        var wantETag: String?
        var testDescription: String { name }
    }

    static let responseRows: [ResponseRow] = [
        ResponseRow(name: "all disabled", sourceETag: "etag1", sourceLastModified: afterBuster),
        ResponseRow(name: "lastmod enabled no header", useLastModified: true),
        ResponseRow(
            name: "lastmod older than buster", sourceLastModified: beforeBuster, useLastModified: true, lastModifiedBuster: buster,
            wantLastModified: HTTPDate.string(from: buster)
        ),
        ResponseRow(
            name: "lastmod after buster", sourceLastModified: afterBuster, useLastModified: true, lastModifiedBuster: buster,
            wantLastModified: afterBuster
        ),
        ResponseRow(name: "lastmod invalid value", sourceLastModified: "not-a-time", useLastModified: true, lastModifiedBuster: buster),
        ResponseRow(name: "etag enabled empty", useETag: true),
        ResponseRow(name: "etag enabled with value", sourceETag: "etag1", useETag: true, etagBuster: "buster", wantETag: "\"" + wrapped("etag1") + "\""),
        ResponseRow(
            name: "both enabled, both present, lm older", sourceETag: "etag2", sourceLastModified: beforeBuster, useLastModified: true,
            lastModifiedBuster: buster, useETag: true, etagBuster: "buster", wantLastModified: HTTPDate.string(from: buster),
            wantETag: "\"" + wrapped("etag2") + "\""
        ),
        ResponseRow(name: "etag passed through as it is", sourceETag: "\"abc\"", useETag: true, wantETag: "\"abc\""),
    ]

    @Test("validators passed through from the source (imgproxy's TestInjectUserResponseHeaders)", arguments: responseRows)
    func passedThrough(_ row: ResponseRow) {
        let caching = CachingHeaders(
            useETag: row.useETag, etagBuster: row.etagBuster, useLastModified: row.useLastModified,
            lastModifiedBuster: row.lastModifiedBuster, validators: .source
        )
        let variant = EncodedVariant(data: Data([1, 2, 3]), pixelSize: PixelSize(width: 1, height: 1), sourceETag: row.sourceETag, sourceLastModified: row.sourceLastModified)
        #expect(caching.etag(of: variant) == row.wantETag)
        #expect(caching.lastModified(of: variant).map(HTTPDate.string(from:)) == row.wantLastModified)
    }

    @Test("a served ETag wrapped with the buster unwraps to the tag it wraps")
    func wrapRoundTrip() {
        let caching = CachingHeaders(etagBuster: "v7", validators: .source)
        for tag in ["\"5d8c72a\"", "W/\"x\"", "plain", "\"ü/+=\""] {
            let served = caching.served(tag)
            #expect(served.hasPrefix("\"v7/") && served.hasSuffix("\""))
            #expect(caching.forwardedConditions(ifNoneMatch: served, ifModifiedSince: nil)?.ifNoneMatch == tag)
        }
    }

    @Test("Cache-Control passed through: the source's own, else max-age until its Expires, else none")
    func cacheControlPassthrough() {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let caching = CachingHeaders(cacheControlPassthrough: true)
        func variant(_ cacheControl: String?, _ expires: String?) -> EncodedVariant {
            EncodedVariant(data: Data([1]), pixelSize: PixelSize(width: 1, height: 1), sourceCacheControl: cacheControl, sourceExpires: expires)
        }
        #expect(caching.passedThroughCacheControl(of: variant("private, max-age=60", HTTPDate.string(from: now + 900)), now: now) == "private, max-age=60")
        #expect(caching.passedThroughCacheControl(of: variant(nil, HTTPDate.string(from: now + 900)), now: now) == "max-age=900, public")
        #expect(caching.passedThroughCacheControl(of: variant(nil, HTTPDate.string(from: now - 10)), now: now) == nil)
        #expect(caching.passedThroughCacheControl(of: variant(nil, "soon"), now: now) == nil)
        #expect(caching.passedThroughCacheControl(of: variant(nil, nil), now: now) == nil)
        #expect(CachingHeaders().passedThroughCacheControl(of: variant("max-age=5", nil), now: now) == nil)
    }
}
