import Foundation
@testable import WebImage
import WebImageTestSupport

/// Animations the animation tests draw and encode themselves.
enum AnimationFixtures {
    /// `count` frames of `size` × `size`: a fixed gradient of 8 × 8 steps with a dark square
    /// that moves a step a frame, so most pixels repeat the frame before (a GIF encoder
    /// leaves them transparent, and each frame depends on the ones before it). With `alpha`,
    /// the background is transparent on the left half.
    ///
    /// A frame has at most 65 colours, so a GIF encoder keeps them as they are instead of
    /// quantising each frame, which takes about 20 times as long.
    static func movingSquare(frames count: Int, size: Int = 64, alpha: Bool = false, loopCount: Int = 0) throws -> Image {
        let channels = alpha ? 4 : 3
        let square = max(4, size / 8)
        // The background is drawn once; each frame is a copy with its square painted in.
        var background = [UInt8](repeating: 0, count: size * size * channels)
        for y in 0..<size {
            for x in 0..<size {
                let base = (y * size + x) * channels
                background[base] = UInt8(x * 8 / size * 255 / 7)
                background[base + 1] = UInt8(y * 8 / size * 255 / 7)
                background[base + 2] = 90
                if alpha { background[base + 3] = x >= size / 2 ? 255 : 0 }
            }
        }
        var frames: [Image] = []
        frames.reserveCapacity(count)
        for index in 0..<count {
            var pixels = background
            let left = (index * 3) % (size - square)
            let top = (index * 7 / 5) % (size - square)
            for y in top..<top + square {
                for x in left..<left + square {
                    let base = (y * size + x) * channels
                    pixels[base] = 20
                    pixels[base + 1] = UInt8((index * 37) & 0xFF)
                    pixels[base + 2] = 200
                    if alpha { pixels[base + 3] = 255 }
                }
            }
            frames.append(try Image(pixels: pixels, width: size, height: size, channels: channels))
        }
        return try Image.animated(frames: frames, durations: durations(count), loopCount: loopCount)
    }

    /// Durations of 20 to 60 ms, whole centiseconds as GIF stores them, varying frame to frame.
    static func durations(_ count: Int) -> [Double] {
        (0..<count).map { Double(20 + ($0 % 5) * 10) / 1000 }
    }

    /// A 1,000-frame GIF of 64 × 64, played twice: made once per test run, because
    /// encoding it takes seconds.
    static let thousandFrameGIF = Result { try encoded(frames: 1_000, size: 64, loopCount: 2) }

    /// ``movingSquare(frames:size:alpha:loopCount:)`` encoded as `format`.
    static func encoded(
        frames count: Int, size: Int = 64, alpha: Bool = false, loopCount: Int = 0, as format: ImageFormat = .gif
    ) throws -> Data {
        try TestImages.encode(try movingSquare(frames: count, size: size, alpha: alpha, loopCount: loopCount), as: format)
    }
}
