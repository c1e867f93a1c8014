import Crypto

/// imgproxy's URL signature: base64url(HMAC-SHA256(key, salt + path)), the digest
/// truncated to the configured size before encoding.
struct URLSignature: Sendable {
    let keys: [SigningKey]
    /// Bytes of the digest kept (1…32).
    let size: Int
    /// Signatures accepted as they are.
    var trusted: Set<String> = []

    /// The signature of `path` (everything after the signature segment, starting with `/`).
    static func sign(_ path: Substring, with key: SigningKey, size: Int) -> String {
        Base64URL.encode(digest(path, with: key).prefix(size))
    }

    private static func digest(_ path: Substring, with key: SigningKey) -> [UInt8] {
        var hmac = HMAC<SHA256>(key: SymmetricKey(data: key.key))
        hmac.update(data: key.salt)
        hmac.update(data: Array(path.utf8))
        return Array(hmac.finalize())
    }

    /// Checks `signature` against every key pair. Each comparison runs in constant time
    /// and every pair is tried, so the timing does not reveal which pair (if any) matched.
    ///
    /// Without keys every signature is accepted except one holding a `:`: that is an
    /// option, so the URL lacks its signature segment (403, as in imgproxy).
    func verify(signature: Substring, path: Substring) throws(ProxyError) {
        guard !keys.isEmpty else {
            guard !signature.containsByte(":") else {
                throw .forbidden("malformed signature '\(signature.prefix(64))': the first path segment must be a signature (any text without ':', e.g. 'insecure', when URLs are not signed), not an option")
            }
            return
        }
        if trusted.contains(String(signature)) { return }
        guard !signature.isEmpty else {
            throw .forbidden("missing signature: the first path segment must be the URL's signature")
        }
        guard let provided = Base64URL.decode(signature) else {
            throw .forbidden("invalid signature '\(signature.prefix(64))': sign the path with HMAC-SHA256 and encode it as URL-safe base64")
        }
        var matched = false
        for key in keys {
            let expected = Self.digest(path, with: key).prefix(size)
            if Self.constantTimeEqual(provided, expected) { matched = true }
        }
        guard matched else {
            throw .forbidden("invalid signature '\(signature.prefix(64))': the signature does not match the path for any configured key and salt")
        }
    }

    private static func constantTimeEqual(_ lhs: [UInt8], _ rhs: ArraySlice<UInt8>) -> Bool {
        // The length is public (the configured signature size); only the content is secret.
        guard lhs.count == rhs.count else { return false }
        var difference: UInt8 = 0
        for (left, right) in zip(lhs, rhs) { difference |= left ^ right }
        return difference == 0
    }
}
