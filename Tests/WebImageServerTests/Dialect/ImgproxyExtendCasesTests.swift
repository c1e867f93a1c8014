import Foundation
import Testing
import WebImage
@testable import WebImageServer

// imgproxy processing/extend_test.go on the 200 × 100 positional image: where the whole
// image sits on the extended canvas. Centred means ((500 − 200 + 1) / 2, (500 − 100 + 1) / 2)
// = (150, 200) with halves to even; a dpr of 0.5 halves the canvas and the image (the dpr
// is capped at 1: extend never enlarges).
@Suite("imgproxy extend_test.go")
struct ImgproxyExtendCasesTests {
    /// imgproxy's `extendTestCase` / `extendArTestCase`: width, height, the extend option
    /// with a gravity whose offsets are written only when not 0, and a dpr.
    static func extend(
        _ option: String, _ width: Int, _ height: Int, _ gravity: String, x: String? = nil, y: String? = nil, dpr: String? = nil,
        out: (Int, Int), image: Area
    ) -> ImgproxyCase {
        var extendOption = "\(option):1:\(gravity)"
        if let y { extendOption += ":" + (x ?? "") + ":" + y } else if let x { extendOption += ":" + x }
        var options = ["width:\(width)", "height:\(height)", extendOption]
        let test = option == "extend" ? "TestExtend" : "TestExtendAspectRatio"
        var name = "\(option == "extend" ? "extend" : "extendAr")_\(width)x\(height)_gravity_\(gravity)"
        if x != nil || y != nil { name += "_offset_\(x ?? "0")_\(y ?? "0")" }
        if let dpr { options.append("dpr:" + dpr); name += "_dpr_" + dpr }
        return ImgproxyCase(
            test: test, name: name, options: options.joined(separator: "/"), size: PixelSize(width: out.0, height: out.1),
            content: image, visible: Area(PositionalImage.size)
        )
    }

    // TestExtend: 500×500.
    static let extendCases: [ImgproxyCase] = [
        extend("extend", 500, 500, "ce", out: (500, 500), image: Area(150, 200, 200, 100)),
        extend("extend", 500, 500, "no", out: (500, 500), image: Area(150, 0, 200, 100)),
        extend("extend", 500, 500, "so", out: (500, 500), image: Area(150, 400, 200, 100)),
        extend("extend", 500, 500, "ea", out: (500, 500), image: Area(300, 200, 200, 100)),
        extend("extend", 500, 500, "we", out: (500, 500), image: Area(0, 200, 200, 100)),
        extend("extend", 500, 500, "noea", out: (500, 500), image: Area(300, 0, 200, 100)),
        extend("extend", 500, 500, "soea", out: (500, 500), image: Area(300, 400, 200, 100)),
        extend("extend", 500, 500, "sowe", out: (500, 500), image: Area(0, 400, 200, 100)),
        extend("extend", 500, 500, "nowe", out: (500, 500), image: Area(0, 0, 200, 100)),
        // With offsets
        extend("extend", 500, 500, "no", y: "5", out: (500, 500), image: Area(150, 5, 200, 100)),
        extend("extend", 500, 500, "no", y: "5", dpr: "0.5", out: (250, 250), image: Area(76, 2, 100, 50)),
        extend("extend", 500, 500, "no", y: "5", dpr: "2", out: (500, 500), image: Area(150, 5, 200, 100)),
        extend("extend", 500, 500, "ea", x: "5", out: (500, 500), image: Area(295, 200, 200, 100)),
        extend("extend", 500, 500, "ea", x: "5", dpr: "0.5", out: (250, 250), image: Area(148, 100, 100, 50)),
        extend("extend", 500, 500, "ea", x: "5", dpr: "2", out: (500, 500), image: Area(295, 200, 200, 100)),
        // With relative offsets
        extend("extend", 500, 500, "no", y: "0.1", out: (500, 500), image: Area(150, 50, 200, 100)),
        extend("extend", 500, 500, "no", y: "0.1", dpr: "0.5", out: (250, 250), image: Area(76, 25, 100, 50)),
        extend("extend", 500, 500, "no", y: "0.1", dpr: "2", out: (500, 500), image: Area(150, 50, 200, 100)),
    ]

    // TestExtendAspectRatio: 300×600 asks for 1:2, so the 200×100 image gets a 200×400
    // canvas; with dpr 0.5 imgproxy's dpr compensation (0.5 ÷ 2/3 = 0.75) makes it 150×300.
    static let extendAspectRatioCases: [ImgproxyCase] = [
        extend("extend_aspect_ratio", 300, 600, "ce", out: (200, 400), image: Area(0, 150, 200, 100)),
        extend("extend_aspect_ratio", 300, 600, "no", out: (200, 400), image: Area(0, 0, 200, 100)),
        extend("extend_aspect_ratio", 300, 600, "so", out: (200, 400), image: Area(0, 300, 200, 100)),
        extend("extend_aspect_ratio", 300, 600, "ea", out: (200, 400), image: Area(0, 150, 200, 100)),
        extend("extend_aspect_ratio", 300, 600, "we", out: (200, 400), image: Area(0, 150, 200, 100)),
        extend("extend_aspect_ratio", 300, 600, "noea", out: (200, 400), image: Area(0, 0, 200, 100)),
        extend("extend_aspect_ratio", 300, 600, "soea", out: (200, 400), image: Area(0, 300, 200, 100)),
        extend("extend_aspect_ratio", 300, 600, "sowe", out: (200, 400), image: Area(0, 300, 200, 100)),
        extend("extend_aspect_ratio", 300, 600, "nowe", out: (200, 400), image: Area(0, 0, 200, 100)),
        // With offsets
        extend("extend_aspect_ratio", 300, 600, "no", y: "5", out: (200, 400), image: Area(0, 5, 200, 100)),
        extend("extend_aspect_ratio", 300, 600, "no", y: "5", dpr: "0.5", out: (150, 300), image: Area(0, 4, 150, 75)),
        extend("extend_aspect_ratio", 300, 600, "no", y: "5", dpr: "2", out: (200, 400), image: Area(0, 5, 200, 100)),
        extend("extend_aspect_ratio", 300, 600, "ea", x: "5", out: (200, 400), image: Area(0, 150, 200, 100)),
        extend("extend_aspect_ratio", 300, 600, "ea", x: "5", dpr: "0.5", out: (150, 300), image: Area(0, 113, 150, 75)),
        extend("extend_aspect_ratio", 300, 600, "ea", x: "5", dpr: "2", out: (200, 400), image: Area(0, 150, 200, 100)),
        // With relative offsets
        extend("extend_aspect_ratio", 300, 600, "no", y: "0.1", out: (200, 400), image: Area(0, 40, 200, 100)),
        extend("extend_aspect_ratio", 300, 600, "no", y: "0.1", dpr: "0.5", out: (150, 300), image: Area(0, 30, 150, 75)),
        extend("extend_aspect_ratio", 300, 600, "no", y: "0.1", dpr: "2", out: (200, 400), image: Area(0, 40, 200, 100)),
    ]

    @Test("imgproxy TestExtend: the image on a 500×500 canvas at every gravity, with offsets and dpr")
    func extendTable() async throws {
        try await ImgproxyCaseRunner.run(Self.extendCases)
    }

    @Test("imgproxy TestExtendAspectRatio: the image on a canvas of the requested aspect ratio at every gravity, with offsets and dpr")
    func extendAspectRatioTable() async throws {
        try await ImgproxyCaseRunner.run(Self.extendAspectRatioCases)
    }
}
