import CVips
import COrcCodeLock
import Foundation
import Testing
@testable import WebImage
import WebImageTestSupport

@Suite("Concurrent coding")
struct ConcurrentCodingTests {
    @Test("libvips runs its orc vector code, with liborc's compiles and frees behind WebImage's lock")
    func orcVectorCodeBehindTheLock() throws {
        try Vips.start()
        #expect(webimage_orc_code_lock_installed() == 1)
        // libvips' own switch (VIPS_NOVECTOR) still turns vector code off.
        #expect(Vips.vectorCodeEnabled == (ProcessInfo.processInfo.environment["VIPS_NOVECTOR"] == nil))
    }

    /// How many rounds each task of ``orcProgramsOnManyThreads()`` makes:
    /// `WEBIMAGE_ORC_STRESS_ROUNDS` when set (the long run, `make orc-stress`), else 12.
    static var orcStressRounds: Int {
        ProcessInfo.processInfo.environment["WEBIMAGE_ORC_STRESS_ROUNDS"].flatMap { Int($0) } ?? 12
    }

    @Test("many tasks resize, blur, sharpen and thumbnail small images at once, compiling and freeing orc programs")
    func orcProgramsOnManyThreads() async throws {
        try Vips.start()
        let rounds = Self.orcStressRounds
        let opaque = try TestImages.gradient(width: 96, height: 64)
        let translucent = try TestImages.halfTransparent(width: 80, height: 60)
        let jpeg = try TestImages.encode(try TestImages.gradient(width: 160, height: 120, seed: 3), as: .jpeg)
        let callsBefore = webimage_orc_code_lock_calls()
        let made = await withTaskGroup(of: Int.self) { group in
            for task in 0..<8 {
                group.addTask {
                    var made = 0
                    for round in 0..<rounds {
                        // Alpha is resampled premultiplied, in floats, where libvips has no vector code.
                        let source = round % 3 == 2 ? translucent : opaque
                        let side = 8 + (task * 7 + round * 5) % 40
                        do {
                            let steps: [any ImageTransformer] = switch (task + round) % 4 {
                            case 0: [ResizeTransformer(size: PixelSize(width: side, height: side))]
                            case 1: [BlurTransformer(sigma: 0.5 + Double(round % 5))]
                            case 2: [ResizeTransformer(size: PixelSize(width: side, height: side), mode: .fill), SharpenTransformer(sigma: 1)]
                            default: []
                            }
                            let image = steps.isEmpty
                                ? try VipsCoder.shared.decode(jpeg, options: .init(thumbnailPixelSize: PixelSize(width: side, height: side)))
                                : try TransformerPipeline(steps).transform(source)
                            if image.pixelSize.width > 0 { made += 1 }
                        } catch {
                            Issue.record("round \(round) of task \(task): \(error)")
                        }
                    }
                    return made
                }
            }
            return await group.reduce(0, +)
        }
        #expect(made == 8 * rounds)
        if Vips.vectorCodeEnabled {
            // Every resize and blur compiled orc programs and freed them again, through the lock.
            #expect(webimage_orc_code_lock_calls() - callsBefore >= 8 * rounds)
        }
    }

    @Test("many tasks decode, encode and fail at once without interference")
    func concurrentDecodeEncode() async throws {
        let good = try TestImages.encode(try TestImages.gradient(width: 200, height: 150), as: .jpeg)
        let png = try TestImages.encode(try TestImages.quadrants(width: 120, height: 80), as: .png)
        let truncated = png.prefix(png.count / 2)
        let outcomes = await withTaskGroup(of: String.self) { group in
            for index in 0..<64 {
                group.addTask {
                    do {
                        switch index % 4 {
                        case 0:
                            let image = try VipsCoder.shared.decode(good, options: .init())
                            return image.pixelSize == PixelSize(width: 200, height: 150) ? "ok" : "wrong size"
                        case 1:
                            let image = try VipsCoder.shared.decode(png, options: .init(thumbnailPixelSize: PixelSize(width: 60, height: 60)))
                            return image.pixelSize == PixelSize(width: 60, height: 40) ? "ok" : "wrong thumbnail"
                        case 2:
                            _ = try VipsCoder.shared.decode(truncated, options: .init())
                            return "truncated decoded"
                        default:
                            let image = try VipsCoder.shared.decode(png, options: .init())
                            let webp = try VipsCoder.shared.encode(image, options: .init(format: .webp))
                            return ImageFormat(data: webp) == .webp ? "ok" : "bad encode"
                        }
                    } catch let error as ImageError {
                        // Each failure carries its own message, never another task's.
                        if index % 4 == 2, case .badImageData(let reason) = error, reason.contains("png") || reason.contains("PNG") || reason.contains("spng") {
                            return "ok"
                        }
                        return "unexpected \(error)"
                    } catch {
                        return "unexpected \(error)"
                    }
                }
            }
            var all: [String] = []
            for await outcome in group { all.append(outcome) }
            return all
        }
        #expect(outcomes.filter { $0 != "ok" } == [])
    }
}
