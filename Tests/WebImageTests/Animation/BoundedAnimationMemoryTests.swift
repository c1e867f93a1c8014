import Foundation
import Testing
@testable import WebImage
import WebImageTestSupport

@Suite("A 1,000-frame animation played in bounded memory")
struct BoundedAnimationMemoryTests {
    static let frameCount = 1_000
    static let capacity = 6

    @Test("K2 played twice through the player, the buffer holds at most its capacity and every frame matches a whole decode")
    func K2_thousandFramesInBoundedMemory() async throws {
        let gif = try AnimationFixtures.thousandFrameGIF.get()
        let whole = try VipsCoder.shared.decode(gif)
        #expect(whole.frameCount == Self.frameCount)
        // Each frame's pixels once: both loops are compared with them.
        let wholePixels = try (0..<whole.frameCount).map { try whole.frame(at: $0).pixels() }
        let animation = try AnimatedImage(data: gif)
        #expect(animation.frameCount == Self.frameCount && animation.loopCount == 2)
        let frames = AnimatedImageFrames(animation, capacity: Self.capacity)
        let clock = ManualClock()
        let player = AnimatedImagePlayer(frames: frames, clock: clock)
        var reader = LockStepReader(player.events)
        var shown = 0, loops: [Int] = [], finished = false
        var peakSeen = 0
        player.play()
        while let event = await reader.next() {
            switch event {
            case .frame(let frame):
                let expectedIndex = shown % Self.frameCount
                #expect(frame.index == expectedIndex && frame.loop == shown / Self.frameCount)
                #expect(frame.duration == whole.frameDurations[frame.index])
                if try frame.image.pixels() != wholePixels[frame.index] {
                    Issue.record("frame \(frame.index) of loop \(frame.loop) differs from the whole decode")
                }
                peakSeen = max(peakSeen, frames.statistics.bufferedFrames)
                shown += 1
                clock.advance(by: .seconds(frame.duration))
            case .loopCompleted(let count):
                loops.append(count)
            case .finished:
                finished = true
            case .failed(let error):
                Issue.record("playback failed: \(error)")
            }
            if finished { break }
        }
        let statistics = frames.statistics
        #expect(finished && shown == 2 * Self.frameCount && loops == [1, 2])
        #expect(peakSeen <= Self.capacity)
        #expect(statistics.peakBufferedFrames == Self.capacity)
        #expect(statistics.peakBufferedBytes <= Self.capacity * 64 * 64 * whole.channels)
        // Each frame decoded once a loop: the buffer is far smaller than a loop, and
        // nothing is prefetched past the last loop.
        #expect(statistics.decodedFrames == 2 * Self.frameCount)
        #expect(clock.now.offset == (whole.frameDurations + whole.frameDurations).reduce(Duration.zero) { $0 + .seconds($1) })
    }
}
