import Foundation
import Testing
@testable import WebImage
import WebImageTestSupport

@Suite("Transformer keys, colours and pipelines")
struct TransformerKeyTests {
    typealias F = TransformFixtures

    static let box = PixelSize(width: 400, height: 300)

    /// One transformer of every kind and parameter variation.
    static var all: [any ImageTransformer] {
        var list: [any ImageTransformer] = []
        for mode in ResizeMode.allCases {
            list.append(ResizeTransformer(size: box, mode: mode))
            // fill-down never enlarges, so its key has no enlarge variant.
            if mode != .fillDown { list.append(ResizeTransformer(size: box, mode: mode, enlarge: true)) }
        }
        list += [
            ResizeTransformer(size: PixelSize(width: 400, height: 0)),
            ResizeTransformer(size: PixelSize(width: 0, height: 400)),
            ResizeTransformer(size: box, mode: .fill, gravity: .north),
            ResizeTransformer(size: box, mode: .fill, gravity: .smart),
            ResizeTransformer(size: box, mode: .fill, gravity: .focusPoint(x: 0.25, y: 0.5)),
            ResizeTransformer(size: box, mode: .fill, gravity: .focusPoint(x: 0.5, y: 0.25)),
            ResizeTransformer(size: box, mode: .fillDown, gravity: .southEast),
            CropTransformer(rect: PixelRect(x: 10, y: 20, width: 100, height: 50)),
            CropTransformer(rect: PixelRect(x: 20, y: 10, width: 100, height: 50)),
            CropTransformer(rect: PixelRect(x: -10, y: 20, width: 100, height: 50)),
            CropTransformer(size: PixelSize(width: 100, height: 50)),
            CropTransformer(size: PixelSize(width: 100, height: 50), gravity: .west),
            TransformerPipeline([]),
            ExtendTransformer(size: box),
            ExtendTransformer(size: box, gravity: .north),
            ExtendTransformer(size: box, background: .white),
            RoundCornerTransformer(radius: 20),
            RoundCornerTransformer(radius: 21),
            RoundCornerTransformer(radius: 20, borderWidth: 2),
            RoundCornerTransformer(radius: 20, borderWidth: 2, borderColor: .white),
            RotateTransformer(degrees: 90),
            RotateTransformer(degrees: 45),
            RotateTransformer(degrees: 45, fitSize: false),
            RotateTransformer(degrees: 45, background: .white),
            RotateTransformer(degrees: 12.5),
            FlipTransformer(horizontal: true, vertical: false),
            FlipTransformer(horizontal: false, vertical: true),
            FlipTransformer(horizontal: true, vertical: true),
            FlipTransformer(horizontal: false, vertical: false),
            TintTransformer(color: .white),
            TintTransformer(color: ImageColor(red: 255, green: 255, blue: 255, alpha: 128)),
            BlurTransformer(sigma: 2),
            BlurTransformer(sigma: 2.5),
            BlurTransformer(sigma: 1e20),
            SharpenTransformer(sigma: 2),
            GrayscaleTransformer(),
            BackgroundTransformer(color: .white),
            BackgroundTransformer(color: .black),
            TransformerPipeline([BlurTransformer(sigma: 2), GrayscaleTransformer()]),
            TransformerPipeline([GrayscaleTransformer(), BlurTransformer(sigma: 2)]),
        ]
        return list
    }

    @Test("K8 keys are stable, distinct and safe in file names and cache keys")
    func K8_keys() throws {
        let keys = Self.all.map(\.key)
        #expect(keys == Self.all.map(\.key), "stable")
        let nonEmpty = keys.filter { !$0.isEmpty }
        #expect(Set(nonEmpty).count == nonEmpty.count, "distinct: \(keys)")
        for key in nonEmpty {
            #expect(!key.contains("/") && !key.contains(".") && !key.contains(where: \.isWhitespace), "\(key)")
            #expect(key.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "-+_".contains($0)) }, "\(key)")
        }
        #expect(ResizeTransformer(size: Self.box, mode: .fill).key == "resize-fill-400x300-ce")
        #expect(ResizeTransformer(size: PixelSize(width: 400, height: 0), enlarge: true).key == "resize-fit-400x0-up")
        #expect(ResizeTransformer(size: Self.box, mode: .fillDown, gravity: .focusPoint(x: 0.25, y: 1)).key == "resize-fill-down-400x300-fp0p25-1")
        #expect(CropTransformer(rect: PixelRect(x: 10, y: -20, width: 100, height: 50)).key == "crop-10-m20-100x50")
        #expect(CropTransformer(size: PixelSize(width: 100, height: 50), gravity: .smart).key == "crop-100x50-sm")
        #expect(ExtendTransformer(size: Self.box, gravity: .southWest, background: .white).key == "extend-400x300-sowe-ffffffff")
        #expect(RoundCornerTransformer(radius: 20, borderWidth: 2).key == "round-20-2-000000ff")
        #expect(RotateTransformer(degrees: -45, fitSize: false).key == "rotate-315-keep-00000000")
        #expect(BlurTransformer(sigma: 1.5).key == "blur-1p5")
        #expect(BlurTransformer(sigma: -2).key == "blur-m2")
        #expect(SharpenTransformer(sigma: 0.5).key == "sharpen-0p5")
        #expect(TintTransformer(color: ImageColor(red: 255, green: 0, blue: 0, alpha: 128)).key == "tint-ff000080")
        #expect(BackgroundTransformer(color: .white).key == "background-ffffffff")
        #expect(GrayscaleTransformer().key == "grayscale")
        #expect(FlipTransformer(horizontal: true, vertical: false).key == "flip-h")
    }

    @Test("K8 the pipeline key joins its children's keys; the cache key takes it before the extension")
    func K8_pipelineKey() throws {
        let pipeline = TransformerPipeline([
            ResizeTransformer(size: Self.box, mode: .fill),
            CropTransformer(size: PixelSize(width: 100, height: 100), gravity: .north),
        ])
        #expect(pipeline.key == "resize-fill-400x300-ce+crop-100x100-no")
        #expect(TransformerPipeline([]).key == "")
        #expect(
            CacheKey.transformedKey("http://h/a.png?x=1#f", transformerKey: pipeline.key)
                == "http://h/a-resize-fill-400x300-ce+crop-100x100-no.png?x=1#f"
        )
    }

    @Test("K8 a pipeline applies its transformers in order; an empty one is the identity")
    func K8_pipelineApplies() throws {
        let image = try TestImages.quadrants(width: 400, height: 200)
        let pipeline = TransformerPipeline([
            CropTransformer(size: PixelSize(width: 200, height: 100), gravity: .northEast),
            ResizeTransformer(size: PixelSize(width: 50, height: 0)),
        ])
        let result = try pipeline.transform(image)
        #expect(result.pixelSize == PixelSize(width: 50, height: 25))
        #expect(try pixel(result, 25, 12, is: F.green))
        let same = try TransformerPipeline([]).transform(image)
        #expect(same.pixelSize == image.pixelSize)
        #expect(try same.pixels() == image.pixels())
        // A failing step fails the pipeline.
        #expect(throwsInvalidTransform {
            try TransformerPipeline([CropTransformer(rect: PixelRect(x: 999, y: 0, width: 1, height: 1))]).transform(image)
        })
    }

    @Test("K8 colours parse RRGGBB and RRGGBBAA, with or without #")
    func K8_colours() throws {
        #expect(try ImageColor(hex: "ff8000") == ImageColor(red: 255, green: 128, blue: 0))
        #expect(try ImageColor(hex: "#FF800080") == ImageColor(red: 255, green: 128, blue: 0, alpha: 128))
        #expect(try ImageColor(hex: "00000000") == .transparent)
        #expect(try ImageColor(hex: "#ffffff") == .white)
        #expect(ImageColor.black.hex == "000000ff")
        #expect(ImageColor(red: 1, green: 2, blue: 255, alpha: 16).hex == "0102ff10")
        for bad in ["", "#", "fff", "ff80000", "gg0000", "#ff00ff00ff", "+f0000", " ff0000"] {
            #expect(throws: ImageError.self, "\(bad)") { try ImageColor(hex: bad) }
            do {
                _ = try ImageColor(hex: bad)
            } catch {
                guard case .invalidTransform = error else { Issue.record("\(bad): \(error)"); continue }
            }
        }
    }
}
