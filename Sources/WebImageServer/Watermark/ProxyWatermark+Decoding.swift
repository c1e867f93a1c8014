import Crypto
import Foundation
import WebImage

extension ProxyWatermark {
    /// Decodes `data` as the watermark, its first frame only.
    static func decoded(from data: Data, baseOpacity: Double, coder: any ImageCoder) throws(ServerConfigError) -> ProxyWatermark {
        let image: Image
        do {
            image = try coder.decode(data, options: ImageDecodeOptions(firstFrameOnly: true))
        } catch {
            throw ServerConfigError("the watermark is not a usable image: \(error) (\(ConfiguredImage.Purpose.watermark.settings))")
        }
        let digest = SHA256.hash(data: data).prefix(8).map { byte in
            let hex = String(byte, radix: 16)
            return byte < 16 ? "0" + hex : hex
        }.joined()
        return ProxyWatermark(image: image, digest: digest, baseOpacity: baseOpacity)
    }
}
