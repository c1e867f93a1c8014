import WebImageLocking

/// Plays an animation: shows each frame for its duration on a clock, loop after loop,
/// decoding frames through a bounded ``AnimatedImageFrames`` buffer and prefetching the
/// ones that come next. SDWebImage's `SDAnimatedImagePlayer`.
///
/// The frames shown arrive in ``events``; ``play()``, ``pause()`` and ``stop()`` drive it.
/// A paused player resumes the frame it paused on for the time that frame had left. The
/// clock is any `Clock` measuring `Duration`: `ContinuousClock` on screen, a clock a test
/// moves by hand in tests.
///
/// Each frame starts when the one before it ends (its deadline), not when it was decoded,
/// so decoding time does not make the animation drift; a player that falls behind shows
/// the late frames without waiting until it has caught up.
public final class AnimatedImagePlayer<PlayerClock: Clock>: Sendable where PlayerClock.Duration == Duration {
    /// The buffer the frames come from.
    public let frames: AnimatedImageFrames
    /// The clock frame durations are measured on.
    public let clock: PlayerClock
    /// How many loops play before the player stops; 0 plays forever.
    public let loopCount: Int
    /// The order frames are shown in.
    public let playbackMode: AnimationPlaybackMode
    /// How fast the animation plays: 2 shows each frame for half its duration.
    public let playbackRate: Double
    /// What the player shows, in order: each frame, each loop completed, the end.
    ///
    /// One reader at a time. A reader slower than the animation misses the oldest events
    /// beyond the newest 8, as a display shows the latest frame; a reader that keeps up
    /// sees every one. The stream finishes when the player is released.
    public let events: AsyncStream<AnimationEvent>
    private let playback: Playback<PlayerClock>

    /// A player of `frames` on `clock`.
    ///
    /// - Parameters:
    ///   - frames: The buffer to take frames from; the player prefetches up to its
    ///     capacity.
    ///   - clock: Measures the frames' durations.
    ///   - loopCount: Loops to play; `nil` takes the animation's own loop count. 0 plays
    ///     forever.
    ///   - playbackMode: The order frames are shown in.
    ///   - playbackRate: A speed factor; a value that is not a positive number is taken as 1.
    public init(
        frames: AnimatedImageFrames,
        clock: PlayerClock,
        loopCount: Int? = nil,
        playbackMode: AnimationPlaybackMode = .normal,
        playbackRate: Double = 1
    ) {
        self.frames = frames
        self.clock = clock
        self.loopCount = max(0, loopCount ?? frames.provider.loopCount)
        self.playbackMode = playbackMode
        self.playbackRate = playbackRate.isFinite && playbackRate > 0 ? playbackRate : 1
        let (stream, continuation) = AsyncStream.makeStream(of: AnimationEvent.self, bufferingPolicy: .bufferingNewest(8))
        events = stream
        playback = Playback(
            frames: frames, clock: clock, loopCount: self.loopCount, order: playbackMode.order(frameCount: frames.frameCount),
            rate: self.playbackRate, continuation: continuation
        )
    }

    deinit {
        playback.stop(finishing: true)
    }

    /// Starts playing, or resumes after ``pause()``; after ``stop()`` or the last loop it
    /// starts again from the first frame. Does nothing while playing.
    public func play() { playback.play() }

    /// Resumes after ``pause()``: the frame shown stays for the time it had left, then
    /// playback goes on. Does nothing unless paused.
    public func resume() { playback.play(onlyIfPaused: true) }

    /// Pauses on the frame shown, keeping the time it has left. Does nothing unless playing.
    public func pause() { playback.pause() }

    /// Stops and goes back to the first frame of the first loop.
    public func stop() { playback.stop(finishing: false) }

    /// Whether the player is playing now.
    public var isPlaying: Bool { playback.state.withLock { $0.status == .playing } }

    /// The index of the frame shown last, or about to be shown when none is.
    public var currentFrameIndex: Int { playback.state.withLock { playback.order[$0.step] } }

    /// Loops completed since the player started or last stopped.
    public var completedLoops: Int { playback.state.withLock { $0.completedLoops } }
}

extension AnimatedImagePlayer where PlayerClock == ContinuousClock {
    /// A player of `frames` on the continuous clock: what a display uses.
    public convenience init(
        frames: AnimatedImageFrames, loopCount: Int? = nil, playbackMode: AnimationPlaybackMode = .normal, playbackRate: Double = 1
    ) {
        self.init(frames: frames, clock: ContinuousClock(), loopCount: loopCount, playbackMode: playbackMode, playbackRate: playbackRate)
    }
}

/// Where playback is, shared by the player's calls and the task that shows frames.
private struct PlaybackState<Instant: InstantProtocol>: Sendable where Instant.Duration == Duration {
    enum Status { case idle, playing, paused, finished }

    var status = Status.idle
    /// The position in the playback order of the frame shown (or to show next).
    var step = 0
    /// Whether the frame at `step` has been shown.
    var shown = false
    /// When the frame shown ends.
    var deadline: Instant?
    /// On pause, the time the frame shown had left.
    var remaining: Duration?
    var completedLoops = 0
    /// Changed by every play, pause and stop: a task of an older generation stops
    /// without touching the state.
    var generation = 0
    var task: Task<Void, Never>?
}

/// The playing task and the state it shares with the player: it holds no reference to
/// the player, so releasing the player stops it.
private final class Playback<PlayerClock: Clock>: Sendable where PlayerClock.Duration == Duration {
    let frames: AnimatedImageFrames
    let clock: PlayerClock
    let loopCount: Int
    let order: [Int]
    let rate: Double
    let continuation: AsyncStream<AnimationEvent>.Continuation
    let state = Locked(PlaybackState<PlayerClock.Instant>())

    init(
        frames: AnimatedImageFrames, clock: PlayerClock, loopCount: Int, order: [Int], rate: Double,
        continuation: AsyncStream<AnimationEvent>.Continuation
    ) {
        self.frames = frames
        self.clock = clock
        self.loopCount = loopCount
        self.order = order
        self.rate = rate
        self.continuation = continuation
    }

    func play(onlyIfPaused: Bool = false) {
        state.withLock { state in
            guard state.status != .playing, !onlyIfPaused || state.status == .paused else { return }
            if state.status == .finished { state = PlaybackState(generation: state.generation) }
            if state.shown, let remaining = state.remaining {
                state.deadline = clock.now.advanced(by: remaining)
            }
            state.remaining = nil
            state.generation += 1
            state.status = .playing
            let generation = state.generation
            state.task = Task { await self.run(generation) }
        }
    }

    func pause() {
        state.withLock { state in
            guard state.status == .playing else { return }
            state.generation += 1
            state.task?.cancel()
            state.task = nil
            state.status = .paused
            if state.shown, let deadline = state.deadline {
                let left = clock.now.duration(to: deadline)
                state.remaining = max(.zero, left)
            }
        }
    }

    func stop(finishing: Bool) {
        state.withLock { state in
            state.task?.cancel()
            state = PlaybackState(generation: state.generation + 1)
        }
        if finishing { continuation.finish() }
    }

    /// Shows frames until the loop count is played, the task is cancelled or a newer
    /// generation takes over.
    private func run(_ generation: Int) async {
        while true {
            guard let (step, needsShowing) = state.withLock({ state -> (Int, Bool)? in
                state.generation == generation ? (state.step, !state.shown) : nil
            }) else { return }
            if needsShowing {
                guard show(step, generation) else { return }
            }
            guard let deadline = state.withLock({ $0.generation == generation ? $0.deadline : nil }) else { return }
            do {
                try await clock.sleep(until: deadline, tolerance: nil)
            } catch {
                return
            }
            guard advance(generation) else { return }
        }
    }

    /// Decodes and reports the frame at `step` and prefetches the ones after it; `false`
    /// when playback ends here.
    private func show(_ step: Int, _ generation: Int) -> Bool {
        let index = order[step]
        let image: Image
        do {
            image = try frames.frame(at: index)
        } catch {
            state.withLock { state in
                guard state.generation == generation else { return }
                state.status = .finished
                state.task = nil
                continuation.yield(.failed(error))
            }
            return false
        }
        let duration = frames.provider.frameDuration(at: index)
        let shown = state.withLock { state -> Int? in
            guard state.generation == generation else { return nil }
            // Back to back with the frame before; the first frame starts now.
            let start = state.deadline ?? clock.now
            state.deadline = start.advanced(by: .seconds(duration / rate))
            state.shown = true
            continuation.yield(.frame(AnimationFrame(index: index, image: image, duration: duration, loop: state.completedLoops)))
            return state.completedLoops
        }
        guard let loop = shown else { return false }
        // The frames after this one, up to the buffer's room, and none past the last loop.
        var ahead = frames.capacity - 1
        if loopCount > 0 { ahead = min(ahead, (loopCount - loop) * order.count - step - 1) }
        let upcoming = (0..<max(0, ahead)).map { order[(step + 1 + $0) % order.count] }
        // A frame that fails to decode here fails again when it is due, and is reported then.
        try? frames.prefetch(upcoming)
        return true
    }

    /// Moves to the next frame once the one shown has ended; `false` when the last loop
    /// has been played or another generation took over.
    private func advance(_ generation: Int) -> Bool {
        state.withLock { state in
            guard state.generation == generation else { return false }
            state.shown = false
            state.step += 1
            guard state.step == order.count else { return true }
            state.completedLoops += 1
            continuation.yield(.loopCompleted(state.completedLoops))
            guard loopCount > 0, state.completedLoops >= loopCount else {
                state.step = 0
                return true
            }
            state.step = order.count - 1
            state.shown = true
            state.status = .finished
            state.task = nil
            continuation.yield(.finished)
            return false
        }
    }
}
