import Foundation
import Synchronization
import WebImage
import WebImageLocking

/// A coder that counts the decodes and encodes it does (for the manager's variant work).
package final class CountingCoder: ImageCoder {
    package let inner: any ImageCoder = VipsCoder.shared
    package let decodes = Atomic<Int>(0)
    package let encodes = Atomic<Int>(0)
    /// The thumbnail sizes decodes were asked for.
    package let decodeBoxes = InlineLocked<[PixelSize?]>([])

    package func canDecode(_ data: Data) -> Bool { inner.canDecode(data) }
    package func inspect(_ data: Data, limits: ImageLimits) throws(ImageError) -> ImageInfo { try inner.inspect(data, limits: limits) }
    package func decode(_ data: Data, options: ImageDecodeOptions) throws(ImageError) -> Image {
        decodes.add(1, ordering: .relaxed)
        decodeBoxes.withLock { $0.append(options.thumbnailPixelSize) }
        return try inner.decode(data, options: options)
    }
    package func decodePartial(_ data: Data, options: ImageDecodeOptions) throws(ImageError) -> Image? { try inner.decodePartial(data, options: options) }
    package func canEncode(_ format: ImageFormat) -> Bool { inner.canEncode(format) }
    package func encode(_ image: Image, options: ImageEncodeOptions) throws(ImageError) -> Data {
        encodes.add(1, ordering: .relaxed)
        return try inner.encode(image, options: options)
    }
    package var encodeCount: Int { encodes.load(ordering: .relaxed) }
    package var decodeCount: Int { decodes.load(ordering: .relaxed) }

    package init() {}
}
