import Foundation
import WebImage

/// Parses imgproxy-style request paths into ``ProxyRequest``s and checks their signatures.
///
/// A path has the form `/<signature>/<option>/<option>…/<source>` where the source is
/// URL-safe base64 (optionally split into `/` chunks, then `.<ext>`) or
/// `plain/<percent-encoded URL>[@<ext>]`. With keys configured, the signature must be
/// `base64url(HMAC-SHA256(key, salt + "/" + rest of the path))`, the digest truncated to
/// ``signatureSize`` bytes; without keys any signature segment (`insecure`, `_`) is accepted.
///
/// Pass the request's path as it arrived, still percent-encoded, without its query string.
public struct ProxyURLParser: Sendable {
    /// The key/salt pairs; a URL signed with any of them is accepted. Empty: no signing.
    public let keys: [SigningKey]
    /// Bytes of the HMAC digest kept in signatures (1…32), imgproxy's `IMGPROXY_SIGNATURE_SIZE`.
    public let signatureSize: Int
    /// Named option strings (`"thumb": "rs:fill:300:300/q:80"`), used with `preset:<name>`.
    /// A preset named `default` applies to every URL before its own options.
    public let presets: [String: String]
    /// Largest width, height, crop size or offset a URL may ask for (default 8192).
    public let maxDimension: Int
    /// The key of `enc/` sources; `nil`: encrypted sources are refused.
    public let sourceCipher: SourceURLCipher?
    /// imgproxy's only-presets mode: the segment after the signature is a `:`-separated
    /// list of preset names (`/sig/thumb:sharp/plain/…`), and no other options are read.
    public let onlyPresets: Bool

    /// The longest path accepted, in bytes.
    public static let maxPathLength = 16_384

    /// Creates a parser.
    /// - Parameters:
    ///   - keys: key/salt pairs; empty turns signature checking off.
    ///   - signatureSize: bytes of the digest in a signature, clamped to 1…32.
    ///   - presets: preset name → option string, e.g. `"rs:fit:300:300/q:75"`.
    ///   - maxDimension: the bound on sizes and offsets, at least 1.
    ///   - sourceCipher: the key of `enc/` sources, if any.
    ///   - onlyPresets: read the options segment as preset names only.
    public init(
        keys: [SigningKey], signatureSize: Int = 32, presets: [String: String] = [:], maxDimension: Int = 8192,
        sourceCipher: SourceURLCipher? = nil, onlyPresets: Bool = false
    ) {
        self.keys = keys
        self.signatureSize = min(max(signatureSize, 1), 32)
        self.presets = presets
        self.maxDimension = max(maxDimension, 1)
        self.sourceCipher = sourceCipher
        self.onlyPresets = onlyPresets
    }

    /// Parses a request path.
    /// - Parameters:
    ///   - path: the path as received, beginning with `/`.
    ///   - now: the time `expires` is compared with.
    /// - Throws: ``ProxyError``: 400 for a malformed URL, 403 for a bad signature,
    ///   404 for an expired URL.
    public func parse(path: String, now: Date = Date()) throws(ProxyError) -> ProxyRequest {
        guard path.utf8.count <= Self.maxPathLength else {
            throw .badRequest("the path is \(path.utf8.count) bytes long; the limit is \(Self.maxPathLength): shorten the source URL or move options into a preset")
        }
        guard path.first == "/" else {
            throw .badRequest("the path must start with '/': /<signature>/<options…>/<source>")
        }
        if let offset = path.utf8.firstIndex(where: { $0 < 0x20 || $0 == 0x7F }) {
            let position = path.utf8.distance(from: path.utf8.startIndex, to: offset)
            throw .badRequest("the path contains a control character at byte \(position); percent-encode it")
        }
        let afterSlash = path.dropFirst()
        let signatureEnd = afterSlash.firstIndex(of: "/") ?? afterSlash.endIndex
        let signature = afterSlash[..<signatureEnd]
        let signedPath = afterSlash[signatureEnd...]
        try URLSignature(keys: keys, size: signatureSize).verify(signature: signature, path: signedPath)

        let applier = OptionApplier(maxDimension: maxDimension, presets: presets)
        var options = ProcessingOptions()
        if presets["default"] != nil {
            try applier.applyPreset("default", to: &options, depth: 1)
        }
        let segments = signedPath.fields(separatedBy: "/").dropFirst()
        var index = segments.startIndex
        if onlyPresets {
            try applyPresetNames(segments.first, with: applier, to: &options)
            index += 1
        } else {
            // Options are the segments with a ':'; the first without one starts the source
            // (base64 never contains ':'). Empty segments between options are skipped.
            while index < segments.endIndex, segments[index].isEmpty || segments[index].containsByte(":") {
                if !segments[index].isEmpty {
                    try applier.apply(segments[index], to: &options)
                }
                index += 1
            }
        }
        try checkScaledSize(options)
        let source = try ProxySource.decode(segments[index...], cipher: sourceCipher)
        if let format = source.extension { options.format = format }
        if let expires = options.expires, Double(expires) <= now.timeIntervalSince1970 {
            throw ProxyError(status: 404, message: "URL expired: its expires option (\(expires)) is in the past; ask for a freshly signed URL")
        }
        return ProxyRequest(source: source.url, options: options, extensionFormat: source.extension)
    }

    /// Only-presets mode: `segment` names presets separated by `:`, applied in order.
    private func applyPresetNames(_ segment: Substring?, with applier: OptionApplier, to options: inout ProcessingOptions) throws(ProxyError) {
        guard let segment, !segment.isEmpty else {
            throw .badRequest("only presets are accepted: write /<signature>/<preset>[:<preset>…]/<source>")
        }
        for name in segment.split(separator: ":", omittingEmptySubsequences: false) {
            guard !name.isEmpty else {
                throw .badRequest("empty preset name in segment '\(segment.prefix(100))'; only presets are accepted: write <preset>[:<preset>…]")
            }
            do {
                try applier.applyPreset(String(name), to: &options, depth: 1)
            } catch {
                throw .badRequest("segment '\(segment.prefix(100))': \(error.message) (only presets are accepted in this server's URLs)")
            }
        }
    }

    /// The requested size times `dpr` must stay within ``maxDimension`` too.
    private func checkScaledSize(_ options: ProcessingOptions) throws(ProxyError) {
        for (name, value) in [("width", options.width), ("height", options.height)] {
            let scaled = (Double(value) * options.dpr).rounded()
            if scaled > Double(maxDimension) {
                throw .badRequest("\(name) \(value) × dpr \(ProcessingOptions.canonical(options.dpr)) = \(Int(scaled)) pixels exceeds the limit of \(maxDimension); lower the \(name) or the dpr")
            }
        }
    }

    /// Checks that every configured preset parses, so a bad preset fails at startup rather
    /// than on the first request that uses it.
    public func validatePresets() throws(ProxyError) {
        let applier = OptionApplier(maxDimension: maxDimension, presets: presets)
        for name in presets.keys.sorted() {
            var options = ProcessingOptions()
            try applier.applyPreset(name, to: &options, depth: 1)
        }
    }

    /// Signs a path (everything after the signature segment, starting with `/`) with one
    /// key pair: the segment to put in front of it. For clients and tests.
    public static func signature(for path: String, key: SigningKey, signatureSize: Int = 32) -> String {
        URLSignature.sign(Substring(path), with: key, size: min(max(signatureSize, 1), 32))
    }
}
