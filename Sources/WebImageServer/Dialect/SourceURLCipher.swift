import Crypto
import CryptoExtras
import Foundation
import WebImage

/// The key of encrypted source URLs (`/enc/<payload>[.ext]`), imgproxy's
/// `IMGPROXY_SOURCE_URL_ENCRYPTION_KEY`.
///
/// The payload is URL-safe base64 (padding optional, `/` chunks allowed) of a 16-byte
/// initialisation vector followed by the source URL encrypted with AES-CBC under this key,
/// PKCS #7 padded. A 16-, 24- or 32-byte key selects AES-128, -192 or -256.
///
/// Sign URLs that carry encrypted sources: an unsigned `enc/` endpoint answers differently
/// for good and bad padding, which an attacker can use as a padding oracle.
public struct SourceURLCipher: Sendable {
    private let key: SymmetricKey

    /// Creates a cipher from the key's hex digits.
    /// - Throws: ``ServerConfigError`` when the text is not hex or not 16, 24 or 32 bytes.
    public init(hexKey: String) throws(ServerConfigError) {
        let digits = Array(hexKey.trimmingCharacters(in: .whitespaces).utf8)
        var bytes: [UInt8] = []
        var index = 0
        while index + 1 < digits.count, let high = HexDigit.value(digits[index]), let low = HexDigit.value(digits[index + 1]) {
            bytes.append(high << 4 | low)
            index += 2
        }
        guard index == digits.count, [16, 24, 32].contains(bytes.count) else {
            throw ServerConfigError(
                "the source URL encryption key must be 32, 48 or 64 hex digits (a 16-, 24- or 32-byte AES key), e.g. the output of `xxd -g 0 -l 32 -p /dev/random | tr -d '\\n'`"
            )
        }
        key = SymmetricKey(data: bytes)
    }

    /// The source URL in `payload` (IV + ciphertext), or `nil` when it cannot be decrypted
    /// with this key (wrong length, wrong key, bad padding) or is not UTF-8 text.
    func decrypt(_ payload: [UInt8]) -> String? {
        let blockSize = 16
        guard payload.count >= 2 * blockSize, payload.count % blockSize == 0,
              let iv = try? AES._CBC.IV(ivBytes: payload[..<blockSize]),
              let plain = try? AES._CBC.decrypt(payload[blockSize...], using: key, iv: iv)
        else { return nil }
        return String(validating: Array(plain), as: UTF8.self)
    }

    /// The `enc/` payload for `url` with the initialisation vector `iv` (16 bytes), URL-safe
    /// base64 without padding: what a client puts after `/enc/`.
    ///
    /// Use a fresh IV for each URL, or one derived from the URL (a keyed hash) to keep a
    /// URL's proxy address stable, as imgproxy's documentation suggests.
    /// - Throws: ``ProxyError`` (500) when `iv` is not 16 bytes.
    public func encrypt(_ url: String, iv: [UInt8]) throws(ProxyError) -> String {
        guard iv.count == 16, let vector = try? AES._CBC.IV(ivBytes: iv),
              let sealed = try? AES._CBC.encrypt(Array(url.utf8), using: key, iv: vector)
        else {
            throw ProxyError(status: 500, message: "the initialisation vector must be 16 bytes")
        }
        return Base64URL.encode(iv + Array(sealed))
    }
}
