import WebImage

/// One key/salt pair that signs proxy URLs (imgproxy's `IMGPROXY_KEY` / `IMGPROXY_SALT`).
///
/// Several pairs can be configured at once (for key rotation); a URL signed with any of
/// them is accepted.
public struct SigningKey: Sendable, Hashable {
    /// The HMAC-SHA256 key.
    public var key: [UInt8]
    /// The salt prepended to the signed path.
    public var salt: [UInt8]

    /// Creates a pair from raw bytes.
    public init(key: [UInt8], salt: [UInt8]) {
        self.key = key
        self.salt = salt
    }

    /// Creates a pair from hex strings, as imgproxy configures them.
    ///
    /// - Throws: ``ProxyError`` with status 500 when the key is empty, or either string
    ///   is not an even number of hex digits.
    public init(hexKey: String, hexSalt: String) throws(ProxyError) {
        guard let key = Self.bytes(fromHex: hexKey), !key.isEmpty else {
            throw ProxyError(
                status: 500,
                message: "signing key is not valid hex: give the key as an even number of hex digits, e.g. the output of `xxd -g 0 -l 64 -p /dev/random`"
            )
        }
        guard let salt = Self.bytes(fromHex: hexSalt) else {
            throw ProxyError(
                status: 500,
                message: "signing salt is not valid hex: give the salt as an even number of hex digits (or an empty string)"
            )
        }
        self.key = key
        self.salt = salt
    }

    private static func bytes(fromHex hex: String) -> [UInt8]? {
        let digits = Array(hex.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        var index = 0
        while index < digits.count {
            guard let high = HexDigit.value(digits[index]), let low = HexDigit.value(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        return bytes
    }
}
