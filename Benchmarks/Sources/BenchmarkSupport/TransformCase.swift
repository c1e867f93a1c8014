import Foundation
import WebImage

/// One measured transform: WebImage's or the direct libvips equivalent. The
/// `TransformBenchmarks` pairs and the `CodingProfile` tool (for perf / callgrind) run
/// the same cases.
public enum TransformCase: String, CaseIterable, Sendable {
    /// The 12 MP JPEG's bytes to a 400 × 300 centred fill, the way `ImageManager` does it
    /// for `processing.thumbnailPixelSize = 400×300` with `processing.transformer =
    /// ResizeTransformer(size: 400×300, mode: .fill)`: `VipsCoder.decode` with the
    /// thumbnail box (JPEG shrink-on-load), then the transformer.
    case resizeFillWebImage = "resize-fill-webimage"
    /// `vips_thumbnail_buffer(…, 400, "height", 300, "crop", CENTRE)` + `vips_image_copy_memory`.
    case resizeFillDirect = "resize-fill-direct"
    /// The same fill with only `processing.transformer` set, as `ImageManager` does it: the
    /// header read, the transformer's `shrinkOnLoadSize` (400 × 400 here), a decode into
    /// that box (JPEG shrink-on-load), then the transformer finishes the fill.
    case resizeFillTransformerOnlyWebImage = "resize-fill-transformer-only-webimage"
    /// `BlurTransformer(sigma: 5)` of a 1 MP RGB image already in memory (made from pixels).
    case blurWebImage = "blur-webimage"
    /// `vips_gaussblur(…, 5)` + `vips_image_copy_memory` of the same pixels in memory.
    case blurDirect = "blur-direct"

    /// The fill's box.
    public static let fillSize = PixelSize(width: 400, height: 300)
    /// The blur's standard deviation, in pixels.
    public static let blurSigma = 5.0

    static let resize = ResizeTransformer(size: fillSize, mode: .fill)
    static let blur = BlurTransformer(sigma: blurSigma)
    static let thumbnailOptions = ImageDecodeOptions(thumbnailPixelSize: fillSize)

    private static let pixels1MP = Fixtures.pixels(width: 1000, height: 1000, seed: 0x5EED_0100, grain: 16)

    // Each input is made on first use, so a process builds only what its cases need.
    private static let webImage1MP = try! Image(pixels: pixels1MP, width: 1000, height: 1000, channels: 3)
    private static let direct1MP = try! DirectVipsImage(pixels: pixels1MP, width: 1000, height: 1000, channels: 3)

    /// The case this one is compared with (WebImage's side ↔ libvips').
    public var counterpart: TransformCase {
        switch self {
        case .resizeFillWebImage, .resizeFillTransformerOnlyWebImage: .resizeFillDirect
        case .resizeFillDirect: .resizeFillWebImage
        case .blurWebImage: .blurDirect
        case .blurDirect: .blurWebImage
        }
    }

    /// The size every case of this pair must produce.
    var expectedSize: PixelSize {
        switch self {
        case .blurWebImage, .blurDirect: PixelSize(width: 1000, height: 1000)
        default: Self.fillSize
        }
    }

    /// Starts libvips (with the same process settings whichever side runs), builds the
    /// inputs, and checks that this case and its counterpart both give the expected size,
    /// so that a pair compares like with like. Call once, before measuring.
    public func prepare() throws {
        try DirectVips.start()
        for side in [self, counterpart] {
            let size = try side.run()
            guard size == expectedSize else {
                throw DirectVips.Failure(description: "\(side.rawValue) made \(size), expected \(expectedSize)")
            }
        }
    }

    /// Runs the transform once (the result's pixels computed in memory) and returns its size.
    public func run() throws -> PixelSize {
        switch self {
        case .resizeFillWebImage:
            try Self.resize.transform(VipsCoder.shared.decode(Fixtures.jpeg12MP, options: Self.thumbnailOptions)).pixelSize
        case .resizeFillDirect:
            try DirectVips.thumbnailFill(Fixtures.jpeg12MP, width: Self.fillSize.width, height: Self.fillSize.height)
        case .resizeFillTransformerOnlyWebImage:
            try Self.resizeAsTheManagerDoes(Fixtures.jpeg12MP).pixelSize
        case .blurWebImage:
            try Self.blur.transform(Self.webImage1MP).pixelSize
        case .blurDirect:
            try Self.direct1MP.gaussianBlur(sigma: Self.blurSigma)
        }
    }

    /// What `ImageManager` does for a request with a transformer and no thumbnail size: read
    /// the header, ask the transformer for a shrink-on-load box, decode into it, transform.
    static func resizeAsTheManagerDoes(_ data: Data) throws -> Image {
        let info = try VipsCoder.shared.inspect(data, limits: .default)
        var options = ImageDecodeOptions()
        if info.frameCount == 1, let box = resize.shrinkOnLoadSize(forSourceSize: info.pixelSize) {
            options.thumbnailPixelSize = box
        }
        return try resize.transform(VipsCoder.shared.decode(data, options: options))
    }
}
