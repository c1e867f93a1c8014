import Foundation
import Testing
@testable import WebImage
import WebImageTestSupport

/// Colour profiles through `webimage fetch` and `webimage info`.
@Suite("webimage: colour profiles")
struct CLIColorTests {
    @Test("CM1, CM2: every space and container, resized by fetch, is within ΔE76 3 of the original")
    func fetchShowsTheOriginal() async throws {
        try #require(ColorTestPictures.colordInstalled, "colord-data's ICC profiles are missing: run scripts/bootstrap")
        try await withCLI { origin, sandbox in
            var urls: [String] = []
            for testCase in ColorTestPictures.cases {
                let path = "/\(testCase.space)-\(testCase.container).img"
                origin.register(path, .image(try ColorTestPictures.picture(testCase), contentType: "application/octet-stream"))
                urls.append(origin.url(path).absoluteString)
            }
            // One run for every picture: written in order, one JSON line each.
            let result = try await sandbox.run(["fetch"] + urls + ["--resize", "fill:48x32", "--quality", "95", "-o", "out", "--json"])
            #expect(result.status == 0, "\(result.stderr)")
            let records = try result.jsonLines()
            #expect(records.count == ColorTestPictures.cases.count)
            for (testCase, record) in zip(ColorTestPictures.cases, records) {
                let output = try #require(record["output"] as? String, "\(testCase): \(record)")
                let data = try #require(FileManager.default.contents(atPath: sandbox.path(output)))
                let difference = try ColorTestPictures.meanDeltaE(output: data, for: testCase, quality: 95)
                #expect(difference <= 3, "\(testCase): mean ΔE76 \(difference)")
            }
        }
    }

    @Test("CM4: fetch --keep-color-profile writes the source's profile with its pixels")
    func fetchKeepsTheProfile() async throws {
        try await withCLI { origin, sandbox in
            let testCase = ColorTestPictures.Case(space: .displayP3, container: .jpeg)
            origin.register("/p3.jpg", .image(try ColorTestPictures.picture(testCase), contentType: "image/jpeg"))
            let url = origin.url("/p3.jpg").absoluteString
            let kept = try await sandbox.run(["fetch", url, "--resize", "fill:48x32", "--quality", "95", "--keep-color-profile", "-o", "kept", "--json"])
            #expect(kept.status == 0, "\(kept.stderr)")
            let keptData = try #require(FileManager.default.contents(atPath: sandbox.path("kept/p3.jpg")))
            var keeping = ImageDecodeOptions()
            keeping.keepsColorProfile = true
            let image = try VipsCoder.shared.decode(keptData, options: keeping)
            #expect(image.colorProfile == ICCProfile.displayP3 && image.pixelSize == PixelSize(width: 48, height: 32))
            #expect(try ColorTestPictures.meanDeltaE(output: keptData, for: testCase, quality: 95) <= 3)
            let converted = try await sandbox.run(["fetch", url, "--resize", "fill:48x32", "-o", "converted"])
            #expect(converted.status == 0, "\(converted.stderr)")
            let convertedData = try #require(FileManager.default.contents(atPath: sandbox.path("converted/p3.jpg")))
            #expect(try VipsCoder.shared.decode(convertedData, options: keeping).colorProfile == nil)
        }
    }

    @Test("info names the colour space and the profile")
    func infoNamesTheProfile() async throws {
        try #require(ColorTestPictures.colordInstalled, "colord-data's ICC profiles are missing: run scripts/bootstrap")
        try await withCLI { _, sandbox in
            let file = sandbox.path("adobe.png")
            try ColorTestPictures.picture(.init(space: .adobeRGB, container: .png16)).write(to: URL(fileURLWithPath: file))
            let text = try await sandbox.run(["info", file])
            #expect(text.status == 0, "\(text.stderr)")
            #expect(text.stdoutLines.contains("colour space: rgb16"))
            #expect(text.stdoutLines.contains("colour profile: Compatible with Adobe RGB (1998)"))
            let json = try await sandbox.run(["info", file, "--json"])
            let record = try #require(try json.jsonLines().first)
            #expect(record["colorSpace"] as? String == "rgb16" && record["colorProfile"] as? String == "Compatible with Adobe RGB (1998)")
        }
    }

    @Test("K7: fetch writes every EXIF orientation upright, resized and kept as downloaded")
    func orientationsUpright() async throws {
        try await withCLI { origin, sandbox in
            let upright = try TestImages.quadrants(width: 60, height: 40)
            var urls: [String] = []
            for orientation in 1...8 {
                origin.register("/o\(orientation).jpg", .image(try TestImages.jpeg(upright: upright, orientation: orientation), contentType: "image/jpeg"))
                urls.append(origin.url("/o\(orientation).jpg").absoluteString)
            }
            for (arguments, size) in [(["--resize", "fit:30x20"], PixelSize(width: 30, height: 20)), (["--format", "png"], PixelSize(width: 60, height: 40))] {
                let result = try await sandbox.run(["fetch"] + urls + arguments + ["-o", "out", "--json"])
                #expect(result.status == 0, "\(result.stderr)")
                for (orientation, record) in zip(1...8, try result.jsonLines()) {
                    let output = try #require(record["output"] as? String)
                    let image = try VipsCoder.shared.decode(try #require(FileManager.default.contents(atPath: sandbox.path(output))))
                    #expect(image.pixelSize == size, "orientation \(orientation)")
                    let (w, h) = (size.width, size.height)
                    for (x, y, colour) in [(w / 4, h / 4, TestImages.topLeft), (3 * w / 4, h / 4, TestImages.topRight),
                                           (w / 4, 3 * h / 4, TestImages.bottomLeft), (3 * w / 4, 3 * h / 4, TestImages.bottomRight)] {
                        let pixel = try image.pixel(x: x, y: y)
                        #expect(zip(pixel, colour).allSatisfy { abs($0 - $1) <= 40 }, "orientation \(orientation) at \(x),\(y): \(pixel)")
                    }
                }
            }
        }
    }
}
