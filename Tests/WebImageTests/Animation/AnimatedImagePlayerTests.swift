import Foundation
import Testing
@testable import WebImage
import WebImageTestSupport

/// Reads a player's events in step with a manual clock: after each frame, the clock moves
/// by `advance(frame)`, which wakes the player for the next one.
struct LockStepReader {
    var iterator: AsyncStream<AnimationEvent>.AsyncIterator

    init(_ events: AsyncStream<AnimationEvent>) { iterator = events.makeAsyncIterator() }

    mutating func next() async -> AnimationEvent? { await iterator.next() }
}

@Suite("AnimatedImagePlayer: frames on a clock")
struct AnimatedImagePlayerTests {
    /// Plays to the end, moving the clock by each frame's duration divided by `rate`:
    /// the frame indices shown and the loops reported.
    static func playToEnd(
        _ player: AnimatedImagePlayer<ManualClock>, clock: ManualClock, rate: Double = 1
    ) async -> (frames: [Int], loops: [Int], finished: Bool) {
        var reader = LockStepReader(player.events)
        var frames: [Int] = [], loops: [Int] = []
        player.play()
        while let event = await reader.next() {
            switch event {
            case .frame(let frame):
                frames.append(frame.index)
                clock.advance(by: .seconds(frame.duration / rate))
            case .loopCompleted(let count):
                loops.append(count)
            case .finished:
                return (frames, loops, true)
            case .failed(let error):
                Issue.record("playback failed: \(error)")
                return (frames, loops, false)
            }
        }
        return (frames, loops, false)
    }

    @Test("K2 it plays the animation's loop count, then stops on the last frame")
    func K2_loopCount() async throws {
        let animation = try AnimationFixtures.movingSquare(frames: 4, size: 8, loopCount: 2)
        let clock = ManualClock()
        let player = AnimatedImagePlayer(frames: AnimatedImageFrames(animation, capacity: 2), clock: clock)
        #expect(player.loopCount == 2 && !player.isPlaying)
        let played = await Self.playToEnd(player, clock: clock)
        #expect(played.frames == [0, 1, 2, 3, 0, 1, 2, 3] && played.loops == [1, 2] && played.finished)
        #expect(!player.isPlaying && player.currentFrameIndex == 3 && player.completedLoops == 2)
        #expect(clock.now.offset == (AnimationFixtures.durations(4) + AnimationFixtures.durations(4)).reduce(Duration.zero) { $0 + .seconds($1) })
    }

    @Test("a loop count given to the player replaces the animation's; playing again after the end starts over")
    func loopCountOverrideAndReplay() async throws {
        let animation = try AnimationFixtures.movingSquare(frames: 3, size: 8, loopCount: 0)
        let clock = ManualClock()
        let player = AnimatedImagePlayer(frames: AnimatedImageFrames(animation), clock: clock, loopCount: 1)
        #expect(await Self.playToEnd(player, clock: clock).frames == [0, 1, 2])
        #expect(await Self.playToEnd(player, clock: clock).frames == [0, 1, 2])
    }

    @Test("each frame waits for its own duration, divided by the playback rate")
    func durationsAndRate() async throws {
        let animation = try AnimationFixtures.movingSquare(frames: 3, size: 8)
        let clock = ManualClock()
        let player = AnimatedImagePlayer(
            frames: AnimatedImageFrames(animation), clock: clock, loopCount: 1, playbackRate: 2
        )
        var reader = LockStepReader(player.events)
        player.play()
        guard case .frame(let first) = await reader.next() else { Issue.record("no first frame"); return }
        #expect(first.index == 0 && first.duration == 0.02 && first.loop == 0)
        // 9 ms of the 10 ms the first frame is shown at twice the speed: not yet.
        clock.advance(by: .milliseconds(9))
        await Self.waitUntilSleeping(clock)
        #expect(player.currentFrameIndex == 0)
        clock.advance(by: .milliseconds(1))
        guard case .frame(let second) = await reader.next() else { Issue.record("no second frame"); return }
        #expect(second.index == 1 && second.duration == 0.03)
        player.stop()
    }

    @Test("pause keeps the frame and the time it had left; resume shows the next frame after that time")
    func pauseAndResume() async throws {
        let animation = try AnimationFixtures.movingSquare(frames: 3, size: 8)
        let clock = ManualClock()
        let player = AnimatedImagePlayer(frames: AnimatedImageFrames(animation), clock: clock)
        var reader = LockStepReader(player.events)
        player.play()
        guard case .frame(let first) = await reader.next(), first.index == 0 else { Issue.record("no first frame"); return }
        await Self.waitUntilSleeping(clock)
        clock.advance(by: .milliseconds(15))
        player.pause()
        #expect(!player.isPlaying)
        // Time passes while paused: nothing is shown.
        clock.advance(by: .seconds(10))
        #expect(player.currentFrameIndex == 0)
        player.resume()
        await Self.waitUntilSleeping(clock)
        clock.advance(by: .milliseconds(4))
        await Self.waitUntilSleeping(clock)
        #expect(player.currentFrameIndex == 0)
        clock.advance(by: .milliseconds(1))
        guard case .frame(let second) = await reader.next() else { Issue.record("no frame after resuming"); return }
        #expect(second.index == 1 && player.isPlaying)
        player.stop()
        #expect(!player.isPlaying && player.currentFrameIndex == 0 && player.completedLoops == 0)
    }

    @Test("the playback modes show the frames in their orders", arguments: AnimationPlaybackMode.allCases)
    func playbackModes(mode: AnimationPlaybackMode) async throws {
        let animation = try AnimationFixtures.movingSquare(frames: 4, size: 8)
        let clock = ManualClock()
        let player = AnimatedImagePlayer(
            frames: AnimatedImageFrames(animation, capacity: 3), clock: clock, loopCount: 2, playbackMode: mode
        )
        let expected: [Int] = switch mode {
        case .normal: [0, 1, 2, 3]
        case .reverse: [3, 2, 1, 0]
        case .bounce: [0, 1, 2, 3, 2, 1]
        case .reversedBounce: [3, 2, 1, 0, 1, 2]
        }
        let played = await Self.playToEnd(player, clock: clock)
        #expect(played.frames == expected + expected && played.loops == [1, 2])
    }

    @Test("a frame that cannot be decoded ends playback with the error")
    func failure() async throws {
        let gif = try AnimationFixtures.encoded(frames: 8, size: 16)
        let animation = try AnimatedImage(data: gif.prefix(gif.count / 2))
        let clock = ManualClock()
        let player = AnimatedImagePlayer(frames: AnimatedImageFrames(animation, capacity: 1), clock: clock, loopCount: 1)
        var reader = LockStepReader(player.events)
        player.play()
        var failed = false
        while let event = await reader.next() {
            if case .frame(let frame) = event { clock.advance(by: .seconds(frame.duration)) }
            if case .failed(let error) = event {
                guard case .badImageData = error else { Issue.record("unexpected \(error)"); break }
                failed = true
                break
            }
            if case .finished = event { break }
        }
        #expect(failed || animation.frameCount < 8)
        #expect(!player.isPlaying)
    }

    @Test("releasing the player finishes its events")
    func releaseFinishesEvents() async throws {
        let clock = ManualClock()
        var player: AnimatedImagePlayer<ManualClock>? = AnimatedImagePlayer(
            frames: AnimatedImageFrames(try AnimationFixtures.movingSquare(frames: 2, size: 8)), clock: clock
        )
        let events = player!.events
        player!.play()
        var reader = LockStepReader(events)
        guard case .frame = await reader.next() else { Issue.record("no frame"); return }
        player = nil
        var rest = 0
        while await reader.next() != nil { rest += 1 }
        #expect(rest <= 2)
    }

    /// Waits until the player sleeps on the clock (it has computed its next deadline).
    static func waitUntilSleeping(_ clock: ManualClock) async {
        while clock.sleeperCount == 0 { await Task.yield() }
    }
}
