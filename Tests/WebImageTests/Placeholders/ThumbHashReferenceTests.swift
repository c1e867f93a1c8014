import Foundation
import Testing
@testable import WebImage

/// The committed ThumbHash fixtures (Fixtures/README.md).
enum ThumbHashFixtures {
    static let directory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // Placeholders
        .deletingLastPathComponent()  // WebImageTests
        .appendingPathComponent("Fixtures")

    /// The hash of a reference vector's image: the flower photo decoded and hashed as any
    /// image is (``ThumbHash/init(image:)``), the others from their RGBA pixels (a synthetic
    /// formula, or the test card's raw pixels).
    static func hash(for vector: ThumbHashReferenceVectors.Encoded) throws -> ThumbHash {
        switch vector.name {
        case "flower":
            let image = try VipsCoder.shared.decode(try Data(contentsOf: directory.appendingPathComponent("thumbhash-flower.jpg")))
            #expect(image.pixelSize == PixelSize(width: vector.width, height: vector.height))
            return try ThumbHash(image: image)
        case "testCard":
            let rgba = [UInt8](try Data(contentsOf: directory.appendingPathComponent("thumbhash-testcard-100x100.rgba")))
            return try ThumbHash(rgba: rgba, width: vector.width, height: vector.height)
        default:
            let rgba = try #require(ThumbHashVectorPixels.rgba(vector.name, width: vector.width, height: vector.height))
            return try ThumbHash(rgba: rgba, width: vector.width, height: vector.height)
        }
    }
}

/// Bytes from lowercase hexadecimal.
func bytes(hex: String) -> [UInt8] {
    var result: [UInt8] = []
    var index = hex.startIndex
    while index < hex.endIndex {
        let next = hex.index(index, offsetBy: 2)
        result.append(UInt8(hex[index..<next], radix: 16)!)
        index = next
    }
    return result
}

/// ThumbHash against the reference implementation (ThumbHashReferenceVectors.swift, made by
/// make-thumbhash-vectors.mjs from evanw/thumbhash js/thumbhash.js): the same bytes for the
/// same pixels, and the same pixels, average colour and aspect ratio for the same bytes.
/// Decoded pixels are compared exactly.
@Suite struct ThumbHashReferenceTests {
    @Test(arguments: ThumbHashReferenceVectors.encoded.map(\.name))
    func encodesAsTheReference(name: String) throws {
        let vector = try #require(ThumbHashReferenceVectors.encoded.first { $0.name == name })
        let hash = try ThumbHashFixtures.hash(for: vector)
        #expect(hash.bytes == bytes(hex: vector.hash))
        #expect(hash.base64 == vector.base64)
        #expect(try ThumbHash(base64: vector.base64) == hash)
    }

    @Test(arguments: ThumbHashReferenceVectors.encoded.map(\.name))
    func decodesEncodedHashesAsTheReference(name: String) throws {
        let vector = try #require(ThumbHashReferenceVectors.encoded.first { $0.name == name })
        try expectDecodes(
            bytes(hex: vector.hash), width: vector.decodedWidth, height: vector.decodedHeight, rgba: vector.decodedRGBA,
            average: vector.average, aspectRatio: vector.aspectRatio
        )
    }

    @Test(arguments: ThumbHashReferenceVectors.decoded.map(\.hash))
    func decodesArbitraryHashesAsTheReference(hex: String) throws {
        let vector = try #require(ThumbHashReferenceVectors.decoded.first { $0.hash == hex })
        try expectDecodes(
            bytes(hex: vector.hash), width: vector.decodedWidth, height: vector.decodedHeight, rgba: vector.decodedRGBA,
            average: vector.average, aspectRatio: vector.aspectRatio
        )
    }

    private func expectDecodes(
        _ hashBytes: [UInt8], width: Int, height: Int, rgba: String, average: [Double], aspectRatio: Double
    ) throws {
        let hash = try ThumbHash(bytes: hashBytes)
        let decoded = hash.pixels()
        #expect(decoded.width == width)
        #expect(decoded.height == height)
        let expected = [UInt8](try #require(Data(base64Encoded: rgba)))
        #expect(decoded.rgba.count == expected.count)
        let differing = zip(decoded.rgba, expected).enumerated().filter { $0.element.0 != $0.element.1 }
        #expect(differing.isEmpty, "\(differing.count) bytes differ, first at \(differing.first.map { "\($0.offset): \($0.element)" } ?? "")")
        let colour = hash.averageColor
        #expect([colour.red, colour.green, colour.blue, colour.alpha] == average)
        #expect(hash.approximateAspectRatio == aspectRatio)

        let image = try hash.image()
        #expect(image.pixelSize == PixelSize(width: width, height: height))
        #expect(image.channels == 4)
        #expect([UInt8](try image.pixels()) == expected)
    }
}
