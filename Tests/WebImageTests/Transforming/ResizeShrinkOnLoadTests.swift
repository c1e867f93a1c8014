import Foundation
import Testing
@testable import WebImage
import WebImageTestSupport

// A resize finished from a shrink-on-load decode gives exactly the size it
// gives from the full-size image, for every mode and awkward proportions.
@Suite("Resize transformer shrink-on-load")
struct ResizeShrinkOnLoadTests {
    /// Source sizes with odd proportions, and boxes that shrink them by half or more.
    static let sources = [PixelSize(width: 1001, height: 667), PixelSize(width: 997, height: 1499), PixelSize(width: 1600, height: 333)]
    static let boxes = [
        PixelSize(width: 333, height: 222), PixelSize(width: 100, height: 100), PixelSize(width: 250, height: 0),
        PixelSize(width: 0, height: 121), PixelSize(width: 301, height: 97), PixelSize(width: 77, height: 400),
    ]

    @Test("K8 the shrunk decode, resized, has the size of the full decode, resized", arguments: sources)
    func sameSizeAsFromFullDecode(_ source: PixelSize) throws {
        let jpeg = try TestImages.encode(try TestImages.quadrants(width: source.width, height: source.height), as: .jpeg)
        let full = try VipsCoder.shared.decode(jpeg)
        var shrunkCount = 0
        for box in Self.boxes {
            for mode in ResizeMode.allCases {
                for enlarge in [false, true] {
                    let transformer = ResizeTransformer(size: box, mode: mode, enlarge: enlarge)
                    let expected = try transformer.transform(full).pixelSize
                    guard let size = transformer.shrinkOnLoadSize(forSourceSize: source) else { continue }
                    shrunkCount += 1
                    // As the manager decodes it: to that size exactly.
                    let shrunk = try VipsCoder.shared.decode(jpeg, options: ImageDecodeOptions(thumbnailPixelSize: size, preserveAspectRatio: false))
                    #expect(shrunk.pixelSize == size)
                    let result = try transformer.transform(shrunk)
                    #expect(result.pixelSize == expected, "\(source) → \(box) \(mode) enlarge \(enlarge): decoded \(size)")
                }
            }
        }
        #expect(shrunkCount >= 30, "most of these resizes shrink by half or more")
    }

    @Test("K8 the scaled size for strong shrinks; none for mild resizes, enlargements, or other transformers first")
    func shrinkOnLoadSizes() {
        let source = PixelSize(width: 1000, height: 500)
        #expect(ResizeTransformer(size: PixelSize(width: 800, height: 800)).shrinkOnLoadSize(forSourceSize: source) == nil)
        #expect(ResizeTransformer(size: PixelSize(width: 4000, height: 4000), enlarge: true).shrinkOnLoadSize(forSourceSize: source) == nil)
        #expect(ResizeTransformer(size: .zero).shrinkOnLoadSize(forSourceSize: source) == nil)
        #expect(ResizeTransformer(size: PixelSize(width: 100, height: 100)).shrinkOnLoadSize(forSourceSize: .zero) == nil)
        #expect(ResizeTransformer(size: PixelSize(width: 100, height: 100)).shrinkOnLoadSize(forSourceSize: source) == PixelSize(width: 100, height: 50))
        #expect(ResizeTransformer(size: PixelSize(width: 100, height: 100), mode: .fill).shrinkOnLoadSize(forSourceSize: source) == PixelSize(width: 200, height: 100))
        #expect(BlurTransformer(sigma: 2).shrinkOnLoadSize(forSourceSize: source) == nil, "the default: full size")
        let pipeline = TransformerPipeline([ResizeTransformer(size: PixelSize(width: 100, height: 100)), BlurTransformer(sigma: 2)])
        #expect(pipeline.shrinkOnLoadSize(forSourceSize: source) == PixelSize(width: 100, height: 50))
        #expect(TransformerPipeline([BlurTransformer(sigma: 2), ResizeTransformer(size: PixelSize(width: 100, height: 100))])
            .shrinkOnLoadSize(forSourceSize: source) == nil)
    }
}
