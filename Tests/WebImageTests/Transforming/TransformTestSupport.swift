import Foundation
import Testing
@testable import WebImage
import WebImageTestSupport

/// Images and probes the transformer tests share.
enum TransformFixtures {
    static let red = [255, 0, 0], green = [0, 255, 0], blue = [0, 0, 255], white = [255, 255, 255]

    /// A flat image of one colour (3 channels, or 4 with `alpha`).
    static func solid(_ colour: [Int], width: Int, height: Int, alpha: Int? = nil) throws -> Image {
        let pixel = (colour + (alpha.map { [$0] } ?? [])).map { UInt8($0) }
        let pixels = [UInt8]((0..<width * height).lazy.flatMap { _ in pixel })
        return try Image(pixels: pixels, width: width, height: height, channels: pixel.count)
    }

    /// A 3-frame animation (quadrants, then solid red, then solid blue), 0.1 / 0.2 / 0.3 s,
    /// played twice.
    static func animation(width: Int, height: Int) throws -> Image {
        try Image.animated(
            frames: [
                try TestImages.quadrants(width: width, height: height),
                try solid(red, width: width, height: height),
                try solid(blue, width: width, height: height),
            ],
            durations: [0.1, 0.2, 0.3],
            loopCount: 2
        )
    }

    /// The same animation round-tripped through GIF, as a manager would decode it.
    static func animatedGIF(width: Int, height: Int) throws -> Image {
        let data = try TestImages.encode(try animation(width: width, height: height), as: .gif)
        return try VipsCoder.shared.decode(data)
    }
}

/// Whether the pixel at (`x`, `y`) of `frame` starts with `expected`, within `tolerance`.
func pixel(_ image: Image, _ x: Int, _ y: Int, frame: Int = 0, is expected: [Int], tolerance: Int = 6) throws -> Bool {
    let actual = try image.pixel(x: x, y: y, frame: frame)
    let matches = close(actual, expected, tolerance: tolerance)
    if !matches { Issue.record("pixel (\(x), \(y)) of frame \(frame) is \(actual), expected \(expected)") }
    return matches
}

/// Whether `body` throws ``ImageError/invalidTransform(_:)``.
func throwsInvalidTransform(_ body: () throws -> Image) -> Bool {
    do {
        _ = try body()
        return false
    } catch let error as ImageError {
        if case .invalidTransform = error { return true }
        return false
    } catch {
        return false
    }
}
