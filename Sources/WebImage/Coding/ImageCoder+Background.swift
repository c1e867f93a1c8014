import Foundation

extension ImageCoder {
    /// ``ImageCoder/encode(_:options:)`` on WebImage's coding thread pool, so that the
    /// libvips work never holds a thread of the Swift cooperative pool (DESIGN: libvips
    /// calls block and burn CPU).
    public func encodeInBackground(_ image: Image, options: ImageEncodeOptions) async throws(ImageError) -> Data {
        try await BlockingPools.run(on: BlockingPools.coding) { () throws(ImageError) -> Data in
            try self.encode(image, options: options)
        }
    }

    /// ``ImageCoder/decode(_:options:)`` on WebImage's coding thread pool.
    public func decodeInBackground(_ data: Data, options: ImageDecodeOptions = ImageDecodeOptions()) async throws(ImageError) -> Image {
        try await BlockingPools.run(on: BlockingPools.coding) { () throws(ImageError) -> Image in
            try self.decode(data, options: options)
        }
    }
}
