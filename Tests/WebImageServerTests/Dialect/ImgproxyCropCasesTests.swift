import Foundation
import Testing
import WebImage
@testable import WebImageServer

// imgproxy processing/crop_test.go on the 200 × 100 positional image. The source areas
// follow imgproxy's arithmetic, e.g. fill 100×26 scales to 100×50 and keeps rows 12–38 at
// the centre ((50 − 26 + 1) / 2 = 12.5, halves to even), source rows 24–76.
@Suite("imgproxy crop_test.go")
struct ImgproxyCropCasesTests {
    /// imgproxy's `resizeFillGravityTestCase`: `rs:fill`, a gravity whose offsets are written
    /// only when not 0 (`g:no::5` for a y offset alone), and a dpr.
    static func fill(
        _ gravity: String, _ width: Int, _ height: Int, x: String? = nil, y: String? = nil, dpr: String? = nil,
        out: (Int, Int)? = nil, visible: Area
    ) -> ImgproxyCase {
        var gravityOption = "g:" + gravity
        if let y { gravityOption += ":" + (x ?? "") + ":" + y } else if let x { gravityOption += ":" + x }
        var options = ["rs:fill:\(width):\(height)", gravityOption]
        var name = "resizeFill_\(width)x\(height)_gravity_\(gravity)"
        if x != nil || y != nil { name += "_offset_\(x ?? "0")_\(y ?? "0")" }
        if let dpr { options.append("dpr:" + dpr); name += "_dpr_" + dpr }
        let size = out.map { PixelSize(width: $0.0, height: $0.1) } ?? PixelSize(width: width, height: height)
        return ImgproxyCase(test: "TestResizeFill", name: name, options: options.joined(separator: "/"), size: size, visible: visible)
    }

    // TestResizeFill: widerSize 100×26 and tallerSize 26×100.
    static let resizeFill: [ImgproxyCase] = [
        // When target has less vertical space
        fill("ce", 100, 26, visible: Area(0, 24, 200, 52)),
        fill("no", 100, 26, visible: Area(0, 0, 200, 52)),
        fill("so", 100, 26, visible: Area(0, 48, 200, 52)),
        fill("noea", 100, 26, visible: Area(0, 0, 200, 52)),
        fill("soea", 100, 26, visible: Area(0, 48, 200, 52)),
        fill("sowe", 100, 26, visible: Area(0, 48, 200, 52)),
        fill("nowe", 100, 26, visible: Area(0, 0, 200, 52)),
        // When target has less horizontal space
        fill("ce", 26, 100, visible: Area(88, 0, 26, 100)),
        fill("ea", 26, 100, visible: Area(174, 0, 26, 100)),
        fill("we", 26, 100, visible: Area(0, 0, 26, 100)),
        fill("noea", 26, 100, visible: Area(174, 0, 26, 100)),
        fill("soea", 26, 100, visible: Area(174, 0, 26, 100)),
        fill("sowe", 26, 100, visible: Area(0, 0, 26, 100)),
        fill("nowe", 26, 100, visible: Area(0, 0, 26, 100)),
        // With DPR
        fill("ce", 100, 26, dpr: "2", out: (200, 52), visible: Area(0, 24, 200, 52)),
        // With offsets
        fill("no", 100, 26, y: "5", visible: Area(0, 10, 200, 52)),
        fill("no", 100, 26, y: "5", dpr: "0.5", out: (50, 13), visible: Area(0, 8, 200, 52)),
        fill("no", 100, 26, y: "5", dpr: "2", out: (200, 52), visible: Area(0, 10, 200, 52)),
        fill("no", 26, 100, x: "5", visible: Area(93, 0, 26, 100)),
        fill("no", 26, 100, x: "5", dpr: "0.5", out: (13, 50), visible: Area(92, 0, 26, 100)),
        // dpr does not affect output size since it higher than input
        fill("no", 26, 100, x: "5", dpr: "2", out: (26, 100), visible: Area(93, 0, 26, 100)),
        // With relative offsets
        fill("no", 100, 26, y: "0.1", visible: Area(0, 10, 200, 52)),
        fill("no", 100, 26, y: "0.1", dpr: "0.5", out: (50, 13), visible: Area(0, 8, 200, 52)),
        fill("no", 100, 26, y: "0.1", dpr: "2", out: (200, 52), visible: Area(0, 10, 200, 52)),
    ]

    /// imgproxy's `cropTestCase`: `crop:50:50[:gravity[:x[:y]]]`, `gravity`, `dpr`.
    static func crop(
        _ cropGravity: String?, gravity: String? = nil, x: String? = nil, y: String? = nil, dpr: String? = nil,
        out: (Int, Int) = (50, 50), visible: Area
    ) -> ImgproxyCase {
        var cropOption = "crop:50:50"
        var name: [String] = []
        if let gravity { name.append("gravity_\(gravity)") }
        if let cropGravity {
            cropOption += ":" + cropGravity
            if let y { cropOption += ":" + (x ?? "") + ":" + y } else if let x { cropOption += ":" + x }
            name.append("crop_gravity_\(cropGravity)")
        }
        name.append("crop_50x50")
        if x != nil || y != nil { name.append("offset_\(x ?? "0")_\(y ?? "0")") }
        var options = [cropOption]
        if let gravity { options.append("gravity:" + gravity) }
        if let dpr { options.append("dpr:" + dpr); name.append("dpr_" + dpr) }
        return ImgproxyCase(
            test: "TestCrop", name: name.joined(separator: "_"), options: options.joined(separator: "/"),
            size: PixelSize(width: out.0, height: out.1), visible: visible
        )
    }

    // TestCrop: 50×50 out of 200×100; the centre is at ((200 − 50 + 1) / 2, (100 − 50 + 1) / 2) = (76, 26).
    static let crops: [ImgproxyCase] = [
        crop("ce", visible: Area(76, 26, 50, 50)),
        crop("no", visible: Area(76, 0, 50, 50)),
        crop("so", visible: Area(76, 50, 50, 50)),
        crop("ea", visible: Area(150, 26, 50, 50)),
        crop("we", visible: Area(0, 26, 50, 50)),
        crop("noea", visible: Area(150, 0, 50, 50)),
        crop("nowe", visible: Area(0, 0, 50, 50)),
        crop("soea", visible: Area(150, 50, 50, 50)),
        crop("sowe", visible: Area(0, 50, 50, 50)),
        // Crop with offsets
        crop("ce", x: "10", visible: Area(86, 26, 50, 50)),
        crop("ce", y: "10", visible: Area(76, 36, 50, 50)),
        crop("ce", x: "10", y: "10", visible: Area(86, 36, 50, 50)),
        // Relative offsets
        crop("ce", x: "0.1", visible: Area(96, 26, 50, 50)),
        crop("ce", y: "0.1", visible: Area(76, 36, 50, 50)),
        crop("ce", x: "0.1", y: "0.1", visible: Area(96, 36, 50, 50)),
        // Dpr: the crop is in source pixels, the result is halved.
        crop("ce", x: "10", y: "10", dpr: "0.5", out: (25, 25), visible: Area(86, 36, 50, 50)),
    ]

    @Test("imgproxy TestResizeFill: fill at every gravity, with dpr, pixel and relative offsets (g:no::5 sets only y)")
    func resizeFill() async throws {
        try await ImgproxyCaseRunner.run(Self.resizeFill)
    }

    @Test("imgproxy TestCrop: crop at every gravity, with pixel and relative offsets and dpr")
    func cropCases() async throws {
        try await ImgproxyCaseRunner.run(Self.crops)
    }

    @Test("imgproxy TestCropGravityPriority: the crop's own gravity wins over gravity; without one, gravity applies")
    func cropGravityPriority() async throws {
        let north = Area(76, 0, 50, 50)
        let cases = [
            ImgproxyCase(test: "TestCropGravityPriority", name: "gravity_no", options: "crop:50:50/gravity:no", size: PixelSize(width: 50, height: 50), visible: north),
            ImgproxyCase(test: "TestCropGravityPriority", name: "crop_gravity_no", options: "crop:50:50:no", size: PixelSize(width: 50, height: 50), visible: north),
            ImgproxyCase(test: "TestCropGravityPriority", name: "gravity_so_crop_gravity_no", options: "crop:50:50:no/gravity:so", size: PixelSize(width: 50, height: 50), visible: north),
        ]
        try await ImgproxyCaseRunner.run(cases)
        // And the three results are the same bytes, as imgproxy checks.
        try await TestProxy.with { (origin, proxy) async throws in
            origin.register("/geometry.png", .image(PositionalImage.png))
            var bodies: [Data] = []
            for example in cases {
                bodies.append(try await proxy.get(ImgproxyCaseRunner.path(example.options, source: origin.url("/geometry.png"))).body)
            }
            #expect(bodies[0] == bodies[1] && bodies[0] == bodies[2])
        }
    }
}
