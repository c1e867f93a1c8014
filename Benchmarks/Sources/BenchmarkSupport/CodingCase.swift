import Foundation
import WebImage

/// One measured decode: WebImage's or the direct libvips equivalent. The benchmarks
/// and the `CodingProfile` tool (for callgrind / perf) run the same cases.
public enum CodingCase: String, CaseIterable, Sendable {
    /// `VipsCoder.decode` of the 24 MP JPEG with a 256 × 256 thumbnail box.
    case thumbnailWebImage = "thumbnail-webimage"
    /// `vips_thumbnail_buffer(…, 256, "height", 256)` + `vips_image_copy_memory`.
    case thumbnailDirect = "thumbnail-direct"
    /// `VipsCoder.decode` of the 4 MP PNG at full size.
    case pngWebImage = "png-webimage"
    /// `vips_image_new_from_buffer` + `vips_image_copy_memory` (default, random access).
    case pngDirect = "png-direct"
    /// The same with `access=sequential`, for reference.
    case pngDirectSequential = "png-direct-sequential"

    public static let thumbnailBox = PixelSize(width: 256, height: 256)
    static let thumbnailOptions = ImageDecodeOptions(thumbnailPixelSize: thumbnailBox)
    static let fullOptions = ImageDecodeOptions()

    var input: Data {
        switch self {
        case .thumbnailWebImage, .thumbnailDirect: Fixtures.jpeg24MP
        case .pngWebImage, .pngDirect, .pngDirectSequential: Fixtures.png4MP
        }
    }

    /// Starts libvips (with the same process settings whichever side runs), builds the
    /// input, and checks that WebImage and libvips give the same size for it, so that
    /// a pair compares like with like. Call once, before measuring.
    public func prepare() throws {
        try DirectVips.start()
        let ours: PixelSize
        let direct: PixelSize
        switch self {
        case .thumbnailWebImage, .thumbnailDirect:
            ours = try Self.thumbnailWebImage.run()
            direct = try Self.thumbnailDirect.run()
        case .pngWebImage, .pngDirect, .pngDirectSequential:
            ours = try Self.pngWebImage.run()
            direct = try Self.pngDirect.run()
            guard try Self.pngDirectSequential.run() == direct, direct == PixelSize(width: 2000, height: 2000) else {
                throw DirectVips.Failure(description: "unexpected PNG size \(direct)")
            }
        }
        guard ours == direct else {
            throw DirectVips.Failure(description: "\(rawValue): WebImage made \(ours), libvips \(direct)")
        }
    }

    /// Runs the decode once and returns the decoded size.
    public func run() throws -> PixelSize {
        switch self {
        case .thumbnailWebImage:
            try VipsCoder.shared.decode(Fixtures.jpeg24MP, options: Self.thumbnailOptions).pixelSize
        case .thumbnailDirect:
            try DirectVips.thumbnail(Fixtures.jpeg24MP, width: Self.thumbnailBox.width, height: Self.thumbnailBox.height)
        case .pngWebImage:
            try VipsCoder.shared.decode(Fixtures.png4MP, options: Self.fullOptions).pixelSize
        case .pngDirect:
            try DirectVips.decode(Fixtures.png4MP)
        case .pngDirectSequential:
            try DirectVips.decode(Fixtures.png4MP, sequential: true)
        }
    }
}
