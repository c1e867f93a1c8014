import Foundation
import Testing
import WebImage
@testable import WebImageServer

// imgproxy processing/processing_test.go, on its 200 × 100 geometry image (here the
// positional image, so that each case also checks which part of the source is shown).
@Suite("imgproxy processing_test.go")
struct ImgproxyProcessingCasesTests {
    /// One row of imgproxy's size tables: requested width and height, expected output size,
    /// and the size of the image inside it when extend pads it (else the whole output).
    struct Row: Sendable {
        var width: Int, height: Int
        var out: (Int, Int)
        var image: (Int, Int)?

        init(_ width: Int, _ height: Int, _ out: (Int, Int), image: (Int, Int)? = nil) {
            (self.width, self.height, self.out, self.image) = (width, height, out, image)
        }
    }

    /// imgproxy's `sizeTestCase` options: resize, then enlarge, extend, extend_aspect_ratio.
    static func cases(_ test: String, type: String, enlarge: Bool = false, extend: Bool = false, extendAR: Bool = false, rows: [Row]) -> [ImgproxyCase] {
        rows.map { row in
            var options = ["resize:\(type):\(row.width):\(row.height)"]
            if enlarge { options.append("enlarge:1") }
            if extend { options.append("extend:1") }
            if extendAR { options.append("extend_aspect_ratio:1") }
            let out = PixelSize(width: row.out.0, height: row.out.1)
            let image = row.image.map { PixelSize(width: $0.0, height: $0.1) } ?? out
            return ImgproxyCase(
                test: test, name: "\(row.width)x\(row.height)", options: options.joined(separator: "/"), size: out,
                content: centred(image, in: out), visible: ImgproxyCase.centred(image)
            )
        }
    }

    /// `image` centred in `out` as imgproxy centres (half the free space plus one, halves to even).
    static func centred(_ image: PixelSize, in out: PixelSize) -> Area {
        let x = ((Double(out.width - image.width) + 1) / 2).rounded(.toNearestOrEven)
        let y = ((Double(out.height - image.height) + 1) / 2).rounded(.toNearestOrEven)
        return Area(x, y, Double(image.width), Double(image.height))
    }

    // TestResizeToFit
    static let resizeToFit = cases("TestResizeToFit", type: "fit", rows: [
        Row(50, 50, (50, 25)), Row(50, 20, (40, 20)), Row(20, 50, (20, 10)), Row(300, 300, (200, 100)), Row(300, 50, (100, 50)),
        Row(100, 300, (100, 50)), Row(0, 50, (100, 50)), Row(50, 0, (50, 25)), Row(0, 200, (200, 100)), Row(300, 0, (200, 100)),
    ])
    // TestResizeToFitEnlarge
    static let resizeToFitEnlarge = cases("TestResizeToFitEnlarge", type: "fit", enlarge: true, rows: [
        Row(50, 50, (50, 25)), Row(50, 20, (40, 20)), Row(20, 50, (20, 10)), Row(300, 300, (300, 150)), Row(300, 125, (250, 125)),
        Row(250, 300, (250, 125)), Row(0, 50, (100, 50)), Row(50, 0, (50, 25)), Row(0, 200, (400, 200)), Row(300, 0, (300, 150)),
    ])
    // TestResizeToFitExtend
    static let resizeToFitExtend = cases("TestResizeToFitExtend", type: "fit", extend: true, rows: [
        Row(50, 50, (50, 50), image: (50, 25)), Row(50, 20, (50, 20), image: (40, 20)), Row(20, 50, (20, 50), image: (20, 10)),
        Row(300, 300, (300, 300), image: (200, 100)), Row(300, 125, (300, 125), image: (200, 100)),
        Row(250, 300, (250, 300), image: (200, 100)), Row(0, 50, (100, 50)), Row(50, 0, (50, 25)),
        Row(0, 200, (200, 200), image: (200, 100)), Row(300, 0, (300, 100), image: (200, 100)),
    ])
    // TestResizeToFitExtendAR
    static let resizeToFitExtendAR = cases("TestResizeToFitExtendAR", type: "fit", extendAR: true, rows: [
        Row(50, 50, (50, 50), image: (50, 25)), Row(50, 20, (50, 20), image: (40, 20)), Row(20, 50, (20, 50), image: (20, 10)),
        Row(300, 300, (200, 200), image: (200, 100)), Row(300, 125, (240, 100), image: (200, 100)),
        Row(250, 500, (200, 400), image: (200, 100)), Row(0, 50, (100, 50)), Row(50, 0, (50, 25)), Row(0, 200, (200, 100)),
        Row(300, 0, (200, 100)),
    ])
    // TestResizeToFill
    static let resizeToFill = cases("TestResizeToFill", type: "fill", rows: [
        Row(50, 50, (50, 50)), Row(50, 20, (50, 20)), Row(20, 50, (20, 50)), Row(300, 300, (200, 100)), Row(300, 50, (200, 50)),
        Row(100, 300, (100, 100)), Row(0, 50, (100, 50)), Row(50, 0, (50, 25)), Row(0, 200, (200, 100)), Row(300, 0, (200, 100)),
    ])
    // TestResizeToFillEnlarge
    static let resizeToFillEnlarge = cases("TestResizeToFillEnlarge", type: "fill", enlarge: true, rows: [
        Row(50, 50, (50, 50)), Row(50, 20, (50, 20)), Row(20, 50, (20, 50)), Row(300, 300, (300, 300)), Row(300, 125, (300, 125)),
        Row(250, 300, (250, 300)), Row(0, 50, (100, 50)), Row(50, 0, (50, 25)), Row(0, 200, (400, 200)), Row(300, 0, (300, 150)),
    ])
    // TestResizeToFillExtend
    static let resizeToFillExtend = cases("TestResizeToFillExtend", type: "fill", extend: true, rows: [
        Row(50, 50, (50, 50)), Row(50, 20, (50, 20)), Row(20, 50, (20, 50)), Row(300, 300, (300, 300), image: (200, 100)),
        Row(300, 125, (300, 125), image: (200, 100)), Row(250, 300, (250, 300), image: (200, 100)),
        Row(300, 50, (300, 50), image: (200, 50)), Row(100, 300, (100, 300), image: (100, 100)), Row(0, 50, (100, 50)),
        Row(50, 0, (50, 25)), Row(0, 200, (200, 200), image: (200, 100)), Row(300, 0, (300, 100), image: (200, 100)),
    ])
    // TestResizeToFillExtendAR
    static let resizeToFillExtendAR = cases("TestResizeToFillExtendAR", type: "fill", extendAR: true, rows: [
        Row(50, 50, (50, 50)), Row(50, 20, (50, 20)), Row(20, 50, (20, 50)), Row(300, 300, (200, 200), image: (200, 100)),
        Row(300, 125, (240, 100), image: (200, 100)), Row(250, 500, (200, 400), image: (200, 100)),
        Row(300, 50, (300, 50), image: (200, 50)), Row(100, 300, (100, 300), image: (100, 100)), Row(0, 50, (100, 50)),
        Row(50, 0, (50, 25)), Row(0, 200, (200, 100)), Row(300, 0, (200, 100)),
    ])
    // TestResizeToFillDown
    static let resizeToFillDown = cases("TestResizeToFillDown", type: "fill-down", rows: [
        Row(50, 50, (50, 50)), Row(50, 20, (50, 20)), Row(20, 50, (20, 50)), Row(300, 300, (100, 100)), Row(300, 125, (200, 83)),
        Row(250, 300, (83, 100)), Row(0, 50, (100, 50)), Row(50, 0, (50, 25)), Row(0, 200, (200, 100)), Row(300, 0, (200, 100)),
    ])
    // TestResizeToFillDownEnlarge
    static let resizeToFillDownEnlarge = cases("TestResizeToFillDownEnlarge", type: "fill-down", enlarge: true, rows: [
        Row(50, 50, (50, 50)), Row(50, 20, (50, 20)), Row(20, 50, (20, 50)), Row(300, 300, (300, 300)), Row(300, 125, (300, 125)),
        Row(250, 300, (250, 300)), Row(0, 50, (100, 50)), Row(50, 0, (50, 25)), Row(0, 200, (400, 200)), Row(300, 0, (300, 150)),
    ])
    // TestResizeToFillDownExtend
    static let resizeToFillDownExtend = cases("TestResizeToFillDownExtend", type: "fill-down", extend: true, rows: [
        Row(50, 50, (50, 50)), Row(50, 20, (50, 20)), Row(20, 50, (20, 50)), Row(300, 300, (300, 300), image: (100, 100)),
        Row(300, 125, (300, 125), image: (200, 83)), Row(250, 300, (250, 300), image: (83, 100)),
        Row(300, 50, (300, 50), image: (200, 33)), Row(100, 300, (100, 300), image: (33, 100)), Row(0, 50, (100, 50)),
        Row(50, 0, (50, 25)), Row(0, 200, (200, 200), image: (200, 100)), Row(300, 0, (300, 100), image: (200, 100)),
    ])
    // TestResizeToFillDownExtendAR
    static let resizeToFillDownExtendAR = cases("TestResizeToFillDownExtendAR", type: "fill-down", extendAR: true, rows: [
        Row(50, 50, (50, 50)), Row(50, 20, (50, 20)), Row(20, 50, (20, 50)), Row(300, 300, (100, 100)), Row(300, 125, (200, 83)),
        Row(250, 300, (83, 100)), Row(0, 50, (100, 50)), Row(50, 0, (50, 25)), Row(0, 200, (200, 100)), Row(300, 0, (200, 100)),
    ])

    /// One row of TestResultSizeLimit: `max_result_dimension`, resize, flags, expected size,
    /// and where the image sits when extend or padding surround it.
    static func limit(
        _ limit: Int, _ width: Int, _ height: Int, _ type: String, enlarge: Bool = false, extend: Bool = false, extendAR: Bool = false,
        rotate: Int = 0, padding: Bool = false, out: (Int, Int), image: Area? = nil
    ) -> ImgproxyCase {
        var options = ["max_result_dimension:\(limit)", "resize:\(type):\(width):\(height)"]
        var name = "\(type):\(width)x\(height):limit:\(limit)"
        if enlarge { options.append("enlarge:1"); name += "_en:true" }
        if extend { options.append("extend:1"); name += "_ex:true" }
        if extendAR { options.append("extend_aspect_ratio:1"); name += "_exAR:true" }
        if rotate != 0 { options.append("rotate:\(rotate)"); name += "_rotate:\(rotate)" }
        if padding { options.append("padding:100:200:300:400"); name += "_padding:100x200x300x400" }
        let size = PixelSize(width: out.0, height: out.1)
        let content = image ?? Area(size)
        let shown = PixelSize(width: Int(content.width), height: Int(content.height))
        return ImgproxyCase(
            test: "TestResultSizeLimit", name: name, options: options.joined(separator: "/"), size: size,
            content: content, visible: ImgproxyCase.centred(shown, rotation: rotate), rotation: rotate
        )
    }

    // TestResultSizeLimit. Where extend or padding surround the image, its place comes from
    // imgproxy's arithmetic: e.g. limit 200 with padding 100:200:300:400 scales everything by
    // 200 / 700, so the padding becomes 29:57:86:114 around a 29-pixel image.
    static let resultSizeLimit: [ImgproxyCase] = [
        limit(1000, 100, 100, "fit", out: (100, 50)),
        limit(50, 100, 100, "fit", out: (50, 25)),
        limit(50, 0, 0, "fit", out: (50, 25)),
        limit(100, 0, 100, "fit", out: (100, 50)),
        limit(50, 150, 0, "fit", out: (50, 25)),
        limit(100, 1000, 1000, "fit", out: (100, 50)),
        limit(100, 1000, 1000, "fit", enlarge: true, out: (100, 50)),
        limit(100, 1000, 2000, "fit", extend: true, out: (50, 100), image: Area(20, 48, 10, 5)),
        limit(100, 1000, 2000, "fit", extendAR: true, out: (50, 100), image: Area(0, 38, 50, 25)),
        limit(100, 100, 150, "fit", rotate: 90, out: (50, 100)),
        limit(100, 0, 0, "fit", rotate: 90, out: (50, 100)),
        limit(200, 100, 100, "fit", padding: true, out: (200, 129), image: Area(114, 29, 29, 14)),
        limit(1000, 100, 100, "fill", out: (100, 100)),
        limit(50, 100, 100, "fill", out: (50, 50)),
        limit(50, 1000, 50, "fill", out: (50, 13)),
        limit(50, 100, 1000, "fill", out: (50, 50)),
        limit(50, 0, 0, "fill", out: (50, 25)),
        limit(100, 0, 100, "fill", out: (100, 50)),
        limit(50, 150, 0, "fill", out: (50, 25)),
        limit(100, 1000, 1000, "fill", out: (100, 50)),
        limit(100, 1000, 1000, "fill", enlarge: true, out: (100, 100)),
        limit(100, 1000, 2000, "fill", extend: true, out: (50, 100), image: Area(20, 48, 10, 5)),
        limit(100, 1000, 2000, "fill", extendAR: true, out: (50, 100), image: Area(0, 38, 50, 25)),
        limit(100, 100, 150, "fill", rotate: 90, out: (67, 100)),
        limit(100, 0, 0, "fill", rotate: 90, out: (50, 100)),
        limit(200, 100, 100, "fill", padding: true, out: (200, 144), image: Area(114, 29, 29, 29)),
        limit(1000, 100, 100, "fill-down", out: (100, 100)),
        limit(50, 100, 100, "fill-down", out: (50, 50)),
        limit(50, 1000, 50, "fill-down", out: (50, 3)),
        limit(50, 100, 1000, "fill-down", out: (5, 50)),
        limit(50, 0, 0, "fill-down", out: (50, 25)),
        limit(100, 0, 100, "fill-down", out: (100, 50)),
        limit(50, 150, 0, "fill-down", out: (50, 25)),
        limit(100, 1000, 1000, "fill-down", out: (100, 100)),
        limit(100, 1000, 1000, "fill-down", enlarge: true, out: (100, 100)),
        limit(100, 1000, 2000, "fill-down", extend: true, out: (50, 100), image: Area(24, 48, 3, 5)),
        limit(100, 1000, 2000, "fill-down", extendAR: true, out: (50, 100)),
        limit(100, 1000, 1500, "fill-down", rotate: 90, out: (67, 100)),
        limit(100, 0, 0, "fill-down", rotate: 90, out: (50, 100)),
        limit(200, 100, 100, "fill-down", padding: true, out: (200, 144), image: Area(114, 29, 29, 29)),
        limit(200, 1000, 1000, "fill-down", padding: true, out: (200, 144), image: Area(114, 29, 29, 29)),
    ]

    static let all = resizeToFit + resizeToFitEnlarge + resizeToFitExtend + resizeToFitExtendAR + resizeToFill + resizeToFillEnlarge
        + resizeToFillExtend + resizeToFillExtendAR + resizeToFillDown + resizeToFillDownEnlarge + resizeToFillDownExtend
        + resizeToFillDownExtendAR + resultSizeLimit

    @Test("imgproxy TestResizeToFit… and TestResizeToFill… (fit, fill, fill-down × enlarge, extend, extend_aspect_ratio): size and placement")
    func resizeTables() async throws {
        try await ImgproxyCaseRunner.run(Self.all.filter { $0.test != "TestResultSizeLimit" })
    }

    @Test("imgproxy TestResultSizeLimit: max_result_dimension scales the result, extension and padding included")
    func resultSizeLimit() async throws {
        try await ImgproxyCaseRunner.run(Self.resultSizeLimit)
    }

    @Test("imgproxy TestImageResolutionTooLarge: a source over max_src_resolution is 422")
    func imageResolutionTooLarge() async throws {
        try await ImgproxyCaseRunner.run([
            ImgproxyCase(test: "TestImageResolutionTooLarge", name: "max_src_resolution", options: "max_src_resolution:0.00001", status: 422),
        ])
    }
}
