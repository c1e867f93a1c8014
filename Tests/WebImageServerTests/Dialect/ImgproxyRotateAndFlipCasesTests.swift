import Foundation
import Testing
import WebImage
@testable import WebImageServer

// imgproxy processing/rotate_and_flip_test.go. imgproxy's eight `orientation-<n>.png` hold
// the same pixels with EXIF orientations 1–8; here they are the positional image as JPEGs
// tagged 1–8, so each output pixel says which stored pixel it shows. Every combination of
// rotate (0, 90, 180, 270), flip (horizontal, vertical) and auto_rotate is checked against
// where the stored pixels must land, then imgproxy's own assertions: without auto_rotate all
// eight images give the same result, with it each differs from the first, and consecutive
// combinations always differ.
@Suite("imgproxy rotate_and_flip_test.go")
struct ImgproxyRotateAndFlipCasesTests {
    /// One request of imgproxy's `rotateAndFlipTestCase`.
    struct Combination: Sendable, CustomStringConvertible {
        var rotate = 0
        var flipHorizontal = false
        var flipVertical = false
        var autoRotate = true

        /// imgproxy's options: `rotate`, `flip:1` / `flip::1` / `flip:1:1`, `auto_rotate:0`.
        var options: String {
            var options: [String] = []
            if rotate != 0 { options.append("rotate:\(rotate)") }
            if flipHorizontal || flipVertical { options.append("flip:" + (flipHorizontal ? "1" : "") + (flipVertical ? ":1" : "")) }
            if !autoRotate { options.append("auto_rotate:0") }
            return options.joined(separator: "/")
        }

        var description: String { "rotate-\(rotate)_flip-\(flipHorizontal)_\(flipVertical)_ar-\(autoRotate)" }

        /// Where the stored pixel `point` of a `size` image tagged `orientation` lands, and the output size.
        func place(_ point: (x: Int, y: Int), in size: PixelSize, orientation: Int) -> (x: Int, y: Int, size: PixelSize) {
            var (x, y, w, h) = (point.x, point.y, size.width, size.height)
            if autoRotate {
                // EXIF orientation: where the stored pixel appears in the upright image.
                switch orientation {
                case 2: x = w - 1 - x
                case 3: (x, y) = (w - 1 - x, h - 1 - y)
                case 4: y = h - 1 - y
                case 5: (x, y, w, h) = (y, x, h, w)
                case 6: (x, y, w, h) = (h - 1 - y, x, h, w)
                case 7: (x, y, w, h) = (h - 1 - y, w - 1 - x, h, w)
                case 8: (x, y, w, h) = (y, w - 1 - x, h, w)
                default: break
                }
            }
            // Clockwise quarter turns.
            for _ in 0..<(rotate / 90) { (x, y, w, h) = (h - 1 - y, x, h, w) }
            if flipHorizontal { x = w - 1 - x }
            if flipVertical { y = h - 1 - y }
            return (x, y, PixelSize(width: w, height: h))
        }
    }

    /// imgproxy's `collectRotationsFlips` order: rotate, then flip horizontal, then vertical.
    static func combinations(autoRotate: Bool) -> [Combination] {
        [0, 90, 180, 270].flatMap { rotate in
            [false, true].flatMap { horizontal in
                [false, true].map { vertical in
                    Combination(rotate: rotate, flipHorizontal: horizontal, flipVertical: vertical, autoRotate: autoRotate)
                }
            }
        }
    }

    /// Stored pixels probed in every result.
    static let probes = [(20, 15), (179, 15), (20, 84), (179, 84), (100, 50)]

    /// Requests `combination` of the image tagged `orientation`, checks that each probed
    /// stored pixel is where it must be, and returns the result's size and what its top-left
    /// pixel shows (to compare results).
    static func check(_ combination: Combination, orientation: Int, origin: URL, proxy: TestProxy) async throws -> String {
        let reply = try await proxy.get(ImgproxyCaseRunner.path(combination.options, source: origin))
        let label = "imgproxy rotate_and_flip_test.go: img-\(orientation - 1)_\(combination)"
        #expect(reply.status == 200, "\(label): \(reply.text.prefix(200))")
        guard reply.status == 200 else { return "" }
        let image = try VipsCoder.shared.decode(reply.body, options: ImageDecodeOptions())
        let size = PositionalImage.size
        #expect(image.pixelSize == combination.place((0, 0), in: size, orientation: orientation).size, "\(label): size")
        guard image.pixelSize == combination.place((0, 0), in: size, orientation: orientation).size else { return "" }
        for probe in probes {
            let at = combination.place(probe, in: size, orientation: orientation)
            let found = PositionalImage.coordinate(of: try image.pixel(x: at.x, y: at.y))
            // JPEG in and out: a few pixels of tolerance.
            #expect(abs(found.x - Double(probe.0)) <= 6 && abs(found.y - Double(probe.1)) <= 6,
                    "\(label): output (\(at.x), \(at.y)) shows stored \(found), expected \(probe)")
        }
        let corner = PositionalImage.coordinate(of: try image.pixel(x: 2, y: 2))
        return "\(image.pixelSize) \(Int((corner.x / 20).rounded())),\(Int((corner.y / 20).rounded()))"
    }

    static func run(_ body: @escaping @Sendable ([URL], TestProxy) async throws -> Void) async throws {
        try await TestProxy.with { (origin, proxy) async throws in
            var urls: [URL] = []
            for orientation in 1...8 {
                origin.register("/orientation-\(orientation - 1).jpg", .image(try PositionalImage.jpeg(orientation: orientation)))
                urls.append(origin.url("/orientation-\(orientation - 1).jpg"))
            }
            try await body(urls, proxy)
        }
    }

    @Test("imgproxy TestOrientationAutoRotate: auto_rotate:0 shows the stored pixels of all eight alike; auto_rotate applies each orientation")
    func orientationAutoRotate() async throws {
        try await Self.run { urls, proxy in
            var plain: [String] = []
            for (index, url) in urls.enumerated() {
                plain.append(try await Self.check(Combination(autoRotate: false), orientation: index + 1, origin: url, proxy: proxy))
            }
            #expect(Set(plain).count == 1, "without auto_rotate every image is the same: \(plain)")
            var rotated: [String] = []
            for (index, url) in urls.enumerated() {
                rotated.append(try await Self.check(Combination(autoRotate: true), orientation: index + 1, origin: url, proxy: proxy))
            }
            for index in 1..<rotated.count {
                #expect(rotated[index] != rotated[index - 1], "auto_rotate: orientation \(index + 1) differs from \(index)")
            }
        }
    }

    @Test("imgproxy TestRotateFlip: every rotate × flip without auto_rotate, all eight images alike, consecutive results differ")
    func rotateFlip() async throws {
        try await Self.run { urls, proxy in
            var results: [[String]] = []
            for (index, url) in urls.enumerated() {
                var row: [String] = []
                for combination in Self.combinations(autoRotate: false) {
                    row.append(try await Self.check(combination, orientation: index + 1, origin: url, proxy: proxy))
                }
                results.append(row)
            }
            for row in results.dropFirst() { #expect(row == results[0], "every image gives the first image's results") }
            for row in results {
                for index in 1..<row.count { #expect(row[index] != row[index - 1], "combination \(index) differs from \(index - 1)") }
            }
        }
    }

    @Test("imgproxy TestRotateFlipAutoRotate: every rotate × flip with auto_rotate, each image unlike the first, consecutive results differ")
    func rotateFlipAutoRotate() async throws {
        try await Self.run { urls, proxy in
            var results: [[String]] = []
            for (index, url) in urls.enumerated() {
                var row: [String] = []
                for combination in Self.combinations(autoRotate: true) {
                    row.append(try await Self.check(combination, orientation: index + 1, origin: url, proxy: proxy))
                }
                results.append(row)
            }
            for row in results.dropFirst() {
                for index in row.indices { #expect(row[index] != results[0][index], "image differs from the first at combination \(index)") }
            }
            for row in results {
                for index in 1..<row.count { #expect(row[index] != row[index - 1], "combination \(index) differs from \(index - 1)") }
            }
        }
    }
}
