import Foundation
import Testing
@testable import WebImage
import WebImageTestSupport

@Suite("AnimatedImageFrames: a bounded buffer of decoded frames")
struct AnimatedImageFramesTests {
    @Test("it never holds more than its capacity, and keeps the current and upcoming frames")
    func boundedAndKeepsUpcoming() throws {
        let animation = try AnimationFixtures.movingSquare(frames: 10, size: 8)
        let frames = AnimatedImageFrames(animation, capacity: 3)
        _ = try frames.frame(at: 0)
        try frames.prefetch([1, 2, 3, 4])
        // Room for two beside the current frame: the two needed first.
        #expect(frames.bufferedIndices == [0, 1, 2])
        _ = try frames.frame(at: 1)
        try frames.prefetch([2, 3])
        // Frame 0 is needed by no one: it goes first.
        #expect(frames.bufferedIndices == [1, 2, 3])
        var statistics = frames.statistics
        #expect(statistics.peakBufferedFrames == 3 && statistics.bufferedFrames == 3)
        #expect(statistics.decodedFrames == 4 && statistics.hits == 1)
        #expect(statistics.bufferedBytes == 3 * 8 * 8 * 3 && statistics.peakBufferedBytes == statistics.bufferedBytes)
        // A frame nobody plans for replaces only frames nobody needs.
        _ = try frames.frame(at: 7)
        #expect(frames.bufferedIndices.contains(7) && frames.bufferedIndices.count == 3)
        frames.removeAll()
        statistics = frames.statistics
        #expect(frames.bufferedIndices.isEmpty && statistics.bufferedFrames == 0 && statistics.bufferedBytes == 0)
        #expect(statistics.peakBufferedFrames == 3)
    }

    @Test("frames come back with the provider's pixels; a capacity below 1 is 1")
    func pixelsAndCapacity() throws {
        let animation = try AnimationFixtures.movingSquare(frames: 4, size: 8)
        let frames = AnimatedImageFrames(animation, capacity: 0)
        #expect(frames.capacity == 1 && frames.frameCount == 4)
        for index in [2, 0, 3, 3] {
            #expect(try frames.frame(at: index).pixels() == animation.frame(at: index).pixels())
        }
        try frames.prefetch([1, 2])
        #expect(frames.statistics.peakBufferedFrames == 1 && frames.statistics.hits == 1)
    }

    @Test("indices outside the animation are refused, naming the range")
    func badIndices() throws {
        let frames = AnimatedImageFrames(try AnimationFixtures.movingSquare(frames: 3, size: 8))
        #expect(throws: ImageError.badImageData("frame 3 is outside 0..<3 of the animation")) { try frames.frame(at: 3) }
        #expect(throws: ImageError.badImageData("frame -2 is outside 0..<3 of the animation")) { try frames.prefetch([1, -2]) }
        #expect(frames.statistics.decodedFrames == 0)
    }

    @Test("many threads asking for frames at once get the right pixels and the bound holds")
    func concurrentReaders() async throws {
        let gif = try AnimationFixtures.encoded(frames: 30, size: 16)
        let whole = try VipsCoder.shared.decode(gif)
        let expected = try (0..<30).map { try whole.frame(at: $0).pixels() }
        let frames = AnimatedImageFrames(try AnimatedImage(data: gif), capacity: 4)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for reader in 0..<4 {
                group.addTask {
                    for step in 0..<60 {
                        let index = (step * (reader + 1)) % 30
                        #expect(try frames.frame(at: index).pixels() == expected[index])
                        try frames.prefetch([(index + 1) % 30, (index + 2) % 30])
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(frames.statistics.peakBufferedFrames <= 4)
    }
}
