import Dispatch
import Foundation
import Synchronization
@testable import WebImage

/// A coder around libvips' that counts the decodes past planning (where the pipeline
/// reserves memory, and may refuse) and the encodes asked of it. It can hold each decode
/// after planning until ``open(_:)`` lets it go, so a reservation is held while a test
/// looks, and hold the first encode at ``encodeGate``.
final class PlanningCoder: ImageCoder {
    let inner: any ImageCoder = VipsCoder.shared
    /// Decodes that went past planning.
    let planned = Atomic<Int>(0)
    let encodes = Atomic<Int>(0)
    /// Set: each decode waits after planning until ``open(_:)`` signals it.
    private let planGate: DispatchSemaphore?
    /// Set: the first encode waits here until it is signalled.
    let encodeGate: DispatchSemaphore?

    init(holdingPlans: Bool = false, holdingFirstEncode: Bool = false) {
        planGate = holdingPlans ? DispatchSemaphore(value: 0) : nil
        encodeGate = holdingFirstEncode ? DispatchSemaphore(value: 0) : nil
    }

    /// Lets `count` held decodes past planning.
    func open(_ count: Int) { for _ in 0..<count { planGate?.signal() } }

    func canDecode(_ data: Data) -> Bool { inner.canDecode(data) }
    func inspect(_ data: Data, limits: ImageLimits) throws(ImageError) -> ImageInfo { try inner.inspect(data, limits: limits) }
    func decode(_ data: Data, options: ImageDecodeOptions) throws(ImageError) -> Image { try inner.decode(data, options: options) }
    func decode(
        _ data: Data, planning plan: (ImageInfo) throws(ImageError) -> ImageDecodeOptions
    ) throws(ImageError) -> (info: ImageInfo, image: Image) {
        try inner.decode(data) { info throws(ImageError) -> ImageDecodeOptions in
            let options = try plan(info)
            planned.add(1, ordering: .relaxed)
            planGate?.wait()
            return options
        }
    }
    func decodePartial(_ data: Data, options: ImageDecodeOptions) throws(ImageError) -> Image? { nil }
    func canEncode(_ format: ImageFormat) -> Bool { inner.canEncode(format) }
    func encode(_ image: Image, options: ImageEncodeOptions) throws(ImageError) -> Data {
        if encodes.add(1, ordering: .relaxed).newValue == 1, let encodeGate { encodeGate.wait() }
        return try inner.encode(image, options: options)
    }
}
