import Foundation
import Testing
@testable import WebImage
import WebImageTestSupport

/// One name and the scale it declares.
struct ScaleCase: Sendable, CustomTestStringConvertible {
    let key: String?
    let scale: Double
    /// Where the case comes from.
    let source: String

    var testDescription: String { "\(key ?? "nil") → \(scale)" }
}

@Suite("ImageScale: the scale factor a name declares")
struct ImageScaleTests {
    /// SDWebImage's own cases, then the rules of its `SDImageScaleFactorForKey` as data.
    static let cases: [ScaleCase] = [
        // SDUtilsTests.testSDScaledImageForKey
        ScaleCase(key: nil, scale: 1, source: "SDUtilsTests.testSDScaledImageForKey"),
        ScaleCase(key: "test@2x.gif", scale: 2, source: "SDUtilsTests.testSDScaledImageForKey"),
        // SDAnimatedImageTest.test02AnimatedImageInitWithContentsOfFile
        ScaleCase(key: "TestImage.gif", scale: 1, source: "SDAnimatedImageTest.test02AnimatedImageInitWithContentsOfFile"),
        ScaleCase(key: "/Tests/Images/1@2x.gif", scale: 2, source: "SDAnimatedImageTest.test02AnimatedImageInitWithContentsOfFile"),
        // SDImageScaleFactorForKey's rules
        ScaleCase(key: "a@2x.png", scale: 2, source: "SDImageScaleFactorForKey: 8 characters, the shortest name with a scale"),
        ScaleCase(key: "@2x.png", scale: 1, source: "SDImageScaleFactorForKey: under 8 characters"),
        ScaleCase(key: "icon@3x.png", scale: 3, source: "SDImageScaleFactorForKey: @3x."),
        ScaleCase(key: "icon@3x.b@2x.png", scale: 2, source: "SDImageScaleFactorForKey: @2x. is looked for first"),
        ScaleCase(key: "icon@2x", scale: 1, source: "SDImageScaleFactorForKey: no dot after the x"),
        ScaleCase(key: "icon@4x.png", scale: 1, source: "SDImageScaleFactorForKey: only 2 and 3"),
        ScaleCase(key: "https://example.com/icon%402x.png", scale: 2, source: "SDImageScaleFactorForKey: percent-encoded in an http(s) URL"),
        ScaleCase(key: "http://example.com/icon%403x.png?v=1", scale: 3, source: "SDImageScaleFactorForKey: percent-encoded in an http(s) URL"),
        ScaleCase(key: "file:///icons/icon%402x.png", scale: 1, source: "SDImageScaleFactorForKey: percent-encoded counts in http(s) URLs only"),
        ScaleCase(key: "https://example.com/icon@2x.png", scale: 2, source: "SDImageScaleFactorForKey: a URL"),
        ScaleCase(key: "https://example.com/icon@2x.png-Thumbnail({16,16},1)", scale: 2, source: "SDImageScaleFactorForKey: a thumbnail key keeps its source's scale"),
    ]

    @Test("the scale a key declares", arguments: cases)
    func factor(_ scaleCase: ScaleCase) {
        #expect(ImageScale.factor(forKey: scaleCase.key) == scaleCase.scale, "\(scaleCase.source)")
    }

    @Test("an image keeps its pixels at another scale; frames and transforms keep the scale")
    func withScale() throws {
        let image = try TestImages.quadrants(width: 20, height: 10)
        #expect(image.scale == 1)
        let scaled = image.withScale(2)
        #expect(scaled.scale == 2 && scaled.pixelSize == image.pixelSize)
        #expect(scaled.pointSize.width == 10 && scaled.pointSize.height == 5)
        #expect(try scaled.pixel(x: 0, y: 0) == image.pixel(x: 0, y: 0))
        #expect(image.withScale(0).scale == 1 && image.withScale(.nan).scale == 1, "not a scale")
        let resized = try ResizeTransformer(size: PixelSize(width: 10, height: 5), mode: .fill).transform(scaled)
        #expect(resized.scale == 2)
        #expect(try scaled.frame(at: 0).scale == 2)
    }
}
