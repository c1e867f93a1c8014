// A long animated GIF played through AnimatedImagePlayer two ways, in one process:
// lazily (AnimatedImage: the header read once, each frame decoded from the GIF when the
// player comes to it, through an AnimatedImageFrames buffer of CAPACITY frames) against
// the baseline of decoding it whole first (VipsCoder.decode: every frame in one Image,
// played through the same player and buffer). The clock never waits, so the frame rate
// is the decoding rate.
//
//   swift build -c release --product AnimationProfile
//   .build/release/AnimationProfile [FRAMES [SIZE [CAPACITY [ROUNDS]]]]
//   # defaults: 1,000 frames of 64 × 64, capacity 8, 3 rounds
//   SIDE=lazy|whole .build/release/AnimationProfile …   # one side only (RSS of that side alone)
//
// Each round plays one loop per side (lazy first, then whole) and prints, per side: frames
// per second (process CPU and wall clock), the peak of decoded pixels held (the buffer's
// high-water mark plus, for the baseline, the whole decode), and the growth of the
// process's peak resident memory over the round (Linux VmHWM, reset before each side).
// The last lines give the ratios whole / lazy of the medians, which also go to
// Benchmarks/results/animation-lazy-gif.json (BenchmarkFigure). `SIDE=variant` measures
// instead the peak RSS growth of making an encoded variant of the GIF (every frame resized
// to half size, encoded as GIF) through ImageManager.loadVariant, the image proxy's path,
// against the same work with the whole animation decoded first; the ratio goes to
// Benchmarks/results/animation-variant-gif.json.
import BenchmarkSupport
import Foundation
import WebImage
import Synchronization

let arguments = Array(CommandLine.arguments.dropFirst())
let frameCount = arguments.count > 0 ? Int(arguments[0]) ?? 1_000 : 1_000
let size = arguments.count > 1 ? Int(arguments[1]) ?? 64 : 64
let capacity = arguments.count > 2 ? Int(arguments[2]) ?? 8 : 8
let rounds = arguments.count > 3 ? Int(arguments[3]) ?? 3 : 3
let side = ProcessInfo.processInfo.environment["SIDE"]

/// A clock whose sleeps return at once, moving its time to the deadline.
final class ImmediateClock: Clock, Sendable {
    struct Instant: InstantProtocol {
        var offset: Duration
        func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        func duration(to other: Instant) -> Duration { other.offset - offset }
        static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private let time = Mutex(Instant(offset: .zero))
    var now: Instant { time.withLock { $0 } }
    var minimumResolution: Duration { .zero }

    func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        time.withLock { $0 = max($0, deadline) }
    }
}

/// `count` frames of `size` × `size`: a gradient with a square moving over it.
func makeGIF() throws -> Data {
    var frames: [Image] = []
    for index in 0..<frameCount {
        var pixels = [UInt8](repeating: 0, count: size * size * 3)
        let square = max(4, size / 8)
        let left = (index * 3) % (size - square), top = (index * 7 / 5) % (size - square)
        for y in 0..<size {
            for x in 0..<size {
                let base = (y * size + x) * 3
                let inSquare = (left..<left + square).contains(x) && (top..<top + square).contains(y)
                pixels[base] = inSquare ? 20 : UInt8(x * 255 / (size - 1))
                pixels[base + 1] = inSquare ? UInt8((index * 37) & 0xFF) : UInt8(y * 255 / (size - 1))
                pixels[base + 2] = inSquare ? 200 : 90
            }
        }
        frames.append(try Image(pixels: pixels, width: size, height: size, channels: 3))
    }
    let animation = try Image.animated(frames: frames, durations: Array(repeating: 0.04, count: frameCount), loopCount: 1)
    return try VipsCoder.shared.encode(animation, options: ImageEncodeOptions(format: .gif))
}

struct Sample {
    var time: TimeSample
    var peakDecodedBytes: Int
    var residentGrowth: Int
    var framesPerCPUSecond: Double { Double(frameCount) / time.cpu }
    var framesPerSecond: Double { Double(frameCount) / time.wall }
}

/// Plays one loop of `provider()` through a buffer of `capacity` frames on the immediate clock.
func play(_ provider: () throws -> any AnimatedImageProvider, extraDecodedBytes: (any AnimatedImageProvider) -> Int) async throws -> Sample {
    let base = PeakResident.reset() ?? 0
    var peak = 0
    var decoded = 0
    let time = try await Clocks.measureProcess {
        let animation = try provider()
        let frames = AnimatedImageFrames(animation, capacity: capacity)
        let player = AnimatedImagePlayer(frames: frames, clock: ImmediateClock(), loopCount: 1)
        player.play()
        // The clock never waits, so the player runs ahead of this reader, which may miss
        // frame events (the stream keeps the newest): the buffer counts the frames instead.
        for await event in player.events {
            if case .failed(let error) = event { throw error }
            if case .finished = event { break }
        }
        // The frame handed out while the buffer is full counts once more.
        peak = frames.statistics.peakBufferedBytes + extraDecodedBytes(animation)
        decoded = frames.statistics.decodedFrames
    }
    // With fewer frames buffered than the animation has, each frame is taken once.
    precondition(decoded == frameCount, "played \(decoded) of \(frameCount) frames")
    let growth = (PeakResident.highWaterMark() ?? 0) - base
    return Sample(time: time, peakDecodedBytes: peak, residentGrowth: growth)
}

/// The frame count with thousands separated by commas, as the figures write numbers.
let groupedFrameCount = frameCount.formatted(.number.locale(Locale(identifier: "en_US")))

func megabytes(_ bytes: Int) -> String { String(format: "%.2f MB", Double(bytes) / 1_048_576) }
func report(_ name: String, _ sample: Sample) {
    print(
        "  \(name): \(String(format: "%8.0f", sample.framesPerCPUSecond)) frames/CPU-s, "
            + "\(String(format: "%8.0f", sample.framesPerSecond)) frames/s, decoded peak \(megabytes(sample.peakDecodedBytes)), "
            + "peak RSS growth \(megabytes(sample.residentGrowth))"
    )
}
func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }

/// An encoded variant of `gif` (every frame resized to half size, encoded as GIF) made
/// through `ImageManager.loadVariant`, the image proxy's path, whose decode makes each
/// frame when the encoder reads it; and the baseline, the same work through `VipsCoder`
/// and the transformer with the whole animation decoded first. Returns the peak resident
/// growth over the work.
func variant(_ gif: Data, throughManager: Bool) async throws -> (residentGrowth: Int, time: TimeSample, output: Int) {
    let resize = ResizeTransformer(size: PixelSize(width: size / 2, height: size / 2), mode: .fit)
    let base = PeakResident.reset() ?? 0
    var output = 0
    let time = try await Clocks.measureProcess {
        if throughManager {
            let url = URL(string: "memory:///animation.gif")!
            let loader = StaticImageLoader(scheme: "memory", images: [url: gif])
            // A cache of its own each time, so that every round makes the variant.
            var config = CacheConfig()
            config.rootDirectory = NSTemporaryDirectory() + "animation-profile-\(getpid())-\(UUID().uuidString)"
            config.shouldCacheImagesInMemory = false
            defer { try? FileManager.default.removeItem(atPath: config.rootDirectory) }
            let manager = ImageManager(cache: ImageCache(config: config), loader: loader)
            var request = ImageRequest(url: url)
            request.processing.transformer = resize
            request.output = .encoded(VariantEncoding(format: .fixed(.gif)), passthrough: .never)
            output = try await manager.loadVariant(request).variant.count
        } else {
            let decoded = try VipsCoder.shared.decode(gif)
            output = try VipsCoder.shared.encode(try resize.transform(decoded), options: ImageEncodeOptions(format: .gif)).count
        }
    }
    return ((PeakResident.highWaterMark() ?? 0) - base, time, output)
}

let gif = try makeGIF()
if side == "variant" {
    print("\(frameCount) frames of \(size) × \(size), GIF \(megabytes(gif.count)), to \(size / 2) × \(size / 2) GIF")
    var manager: [Double] = [], whole: [Double] = []
    for round in 1...rounds {
        for throughManager in [true, false] {
            let made = try await variant(gif, throughManager: throughManager)
            print(
                "round \(round) \(throughManager ? "manager (frames on demand)" : "whole decode first     "): "
                    + "\(megabytes(made.output)) in \(String(format: "%.2f", made.time.wall)) s, "
                    + "peak RSS growth \(megabytes(made.residentGrowth))"
            )
            if throughManager { manager.append(Double(made.residentGrowth)) } else { whole.append(Double(made.residentGrowth)) }
        }
    }
    let ratio = median(whole) / max(1, median(manager))
    print(String(format: "whole / manager: peak RSS growth %.1f×", ratio))
    // Bounded: the manager's growth stays under a tenth of the decoded animation.
    let decodedBytes = Double(frameCount * size * size * 4)
    BenchmarkFigure.write([BenchmarkFigure(
        id: "animation-variant-gif",
        figure: "an encoded variant of a \(groupedFrameCount)-frame \(size) × \(size) GIF (every frame to \(size / 2) × \(size / 2), GIF) through `ImageManager.loadVariant`",
        value: String(
            format: "peak RSS growth %.1f MB (median of %d rounds), 1/%.1f of the baseline's %.1f MB; the decoded animation is %.1f MB",
            median(manager) / 1_048_576, rounds, ratio, median(whole) / 1_048_576, decodedBytes / 1_048_576
        ),
        ratio: ratio, baseline: "the same work through `VipsCoder` with the whole animation decoded first",
        target: "memory follows a few frames, not the frame count", met: BenchmarkFigure.met(median(manager) < decodedBytes / 10)
    )])
    exit(0)
}
print("\(frameCount) frames of \(size) × \(size), GIF \(megabytes(gif.count)), buffer of \(capacity) frames")
var lazy: [Sample] = [], whole: [Sample] = []
for round in 1...rounds {
    print("round \(round)")
    if side != "whole" {
        let sample = try await play({ try AnimatedImage(data: gif) }, extraDecodedBytes: { _ in 0 })
        report("lazy ", sample)
        lazy.append(sample)
    }
    if side != "lazy" {
        let sample = try await play({ try VipsCoder.shared.decode(gif) }, extraDecodedBytes: { ($0 as? Image)?.memoryCost ?? 0 })
        report("whole", sample)
        whole.append(sample)
    }
}
if !lazy.isEmpty && !whole.isEmpty {
    let fps = median(whole.map(\.framesPerCPUSecond)) / median(lazy.map(\.framesPerCPUSecond))
    let decoded = median(whole.map { Double($0.peakDecodedBytes) }) / median(lazy.map { Double($0.peakDecodedBytes) })
    let resident = median(whole.map { Double($0.residentGrowth) }) / max(1, median(lazy.map { Double($0.residentGrowth) }))
    print(String(format: "whole / lazy: frames per CPU-second %.2f×, peak decoded bytes %.1f×, peak RSS growth %.1f×", fps, decoded, resident))
    // Memory follows the buffer: the lazy side holds at most its capacity (and the frame
    // being made) of RGBA frames, whatever the frame count.
    let lazyPeak = median(lazy.map { Double($0.peakDecodedBytes) })
    let frameBytes = Double(size * size * 4)
    BenchmarkFigure.write([BenchmarkFigure(
        id: "animation-lazy-gif",
        figure: "a \(groupedFrameCount)-frame \(size) × \(size) GIF played through `AnimatedImagePlayer` with a buffer of \(capacity)",
        value: String(format: "peak decoded bytes %.2f MB, 1/%.0f of a whole decode's; %.2f× the CPU a frame", lazyPeak / 1_048_576, decoded, fps),
        ratio: fps, baseline: "`VipsCoder.decode` of the whole GIF, the same player and buffer",
        target: "memory follows the buffer, not the frame count", met: BenchmarkFigure.met(lazyPeak <= Double(capacity + 1) * frameBytes)
    )])
}
