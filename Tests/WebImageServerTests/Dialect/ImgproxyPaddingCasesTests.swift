import Foundation
import Testing
import WebImage
@testable import WebImageServer

// imgproxy processing/padding_test.go on the 200 × 100 positional image: padding is in CSS
// pixels, multiplied by the dpr like the image (enlarge:1 lets dpr 2 double it); the
// padding is the red background.
@Suite("imgproxy padding_test.go")
struct ImgproxyPaddingCasesTests {
    /// imgproxy's `paddingTestCase`: `dpr:%f/padding:top:right:bottom:left/background:f00/enlarge:1`.
    static func padding(dpr: Double, out: (Int, Int), image: Area) -> ImgproxyCase {
        ImgproxyCase(
            test: "TestPadding", name: "dpr_\(ProcessingOptions.canonical(dpr))_pad_20_30_40_10",
            options: "dpr:\(String(format: "%f", dpr))/padding:20:30:40:10/background:f00/enlarge:1",
            size: PixelSize(width: out.0, height: out.1), content: image, visible: Area(PositionalImage.size)
        )
    }

    // TestPadding (top 20, right 30, bottom 40, left 10).
    static let cases: [ImgproxyCase] = [
        padding(dpr: 0.5, out: (120, 80), image: Area(5, 10, 100, 50)),
        padding(dpr: 1, out: (240, 160), image: Area(10, 20, 200, 100)),
        padding(dpr: 2, out: (480, 320), image: Area(20, 40, 400, 200)),
    ]

    @Test("imgproxy TestPadding: padding and image scaled by the dpr, the padding filled with the background")
    func paddingTable() async throws {
        try await ImgproxyCaseRunner.run(Self.cases)
    }
}
