import Foundation
import WebImage

/// Parses imgproxy-style request paths into ``ProxyRequest``s and checks their signatures.
///
/// A path has the form `/<signature>/<option>/<option>…/<source>` where the source is
/// URL-safe base64 (optionally split into `/` chunks, then `.<ext>`) or
/// `plain/<percent-encoded URL>[@<ext>]`. With keys configured, the signature must be
/// `base64url(HMAC-SHA256(key, salt + "/" + rest of the path))`, the digest truncated to
/// ``signatureSize`` bytes; without keys any signature segment (`insecure`, `_`) without a
/// `:` is accepted. As in imgproxy, the path is restored first (`%3A` in the options becomes
/// `:`, a plain source's `https:/host` becomes `https://host`; see
/// `ProxyPathNormalization`), and the signature is checked against the restored path.
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
    /// The largest side of a result (default 8192): a URL asking for more gets its result
    /// scaled down to it, as imgproxy scales results to its `IMGPROXY_MAX_RESULT_DIMENSION`.
    public let maxDimension: Int
    /// Whether URLs may set their own limits (`max_src_resolution`…); else such an option is 403.
    public let allowSecurityOptions: Bool
    /// Signature segments accepted as they are, without an HMAC check (imgproxy's
    /// `IMGPROXY_TRUSTED_SIGNATURES`).
    public let trustedSignatures: Set<String>
    /// The key of `enc/` sources; `nil`: encrypted sources are refused.
    public let sourceCipher: SourceURLCipher?
    /// imgproxy's only-presets mode: the segment after the signature is a `:`-separated
    /// list of preset names (`/sig/thumb:sharp/plain/…`), and no other options are read.
    public let onlyPresets: Bool
    /// The options every URL starts from (the server's defaults), before the `default` preset.
    public let defaultOptions: ProcessingOptions
    /// The only option names a URL may use, as written (`w` and `width` are different
    /// names); presets may use any. Empty: every option.
    public let allowedOptions: Set<String>
    /// What separates an option's name and its arguments, and preset names in only-presets
    /// mode (imgproxy's `IMGPROXY_ARGUMENTS_SEPARATOR`). Default `:`.
    public let argumentsSeparator: Unicode.Scalar
    /// How decoded source URLs are rewritten (imgproxy's `IMGPROXY_URL_REPLACEMENTS` and `IMGPROXY_BASE_URL`).
    public let sourceRewrite: SourceURLRewrite
    /// Whether a base64 source split over several segments ends with a file name segment,
    /// which is not part of it (imgproxy's `IMGPROXY_BASE64_URL_INCLUDES_FILENAME`).
    public let base64URLIncludesFilename: Bool

    /// The longest path accepted, in bytes.
    public static let maxPathLength = 16_384

    /// Creates a parser.
    /// - Parameters:
    ///   - keys: key/salt pairs; empty turns signature checking off.
    ///   - signatureSize: bytes of the digest in a signature, clamped to 1…32.
    ///   - presets: preset name → option string, e.g. `"rs:fit:300:300/q:75"`.
    ///   - maxDimension: the largest side of a result, at least 1.
    ///   - allowSecurityOptions: whether URLs may set their own limits.
    ///   - trustedSignatures: signature segments accepted without a check.
    ///   - sourceCipher: the key of `enc/` sources, if any.
    ///   - onlyPresets: read the options segment as preset names only.
    ///   - defaultOptions: the options every URL starts from, before the `default` preset.
    ///   - allowedOptions: the only option names a URL may use (presets may use any); empty: all.
    ///   - argumentsSeparator: what separates an option's name and arguments.
    ///   - sourceRewrite: how decoded source URLs are rewritten.
    ///   - base64URLIncludesFilename: whether a split base64 source ends with a file name segment.
    public init(
        keys: [SigningKey], signatureSize: Int = 32, presets: [String: String] = [:], maxDimension: Int = 8192,
        allowSecurityOptions: Bool = false, trustedSignatures: Set<String> = [], sourceCipher: SourceURLCipher? = nil,
        onlyPresets: Bool = false, defaultOptions: ProcessingOptions = ProcessingOptions(), allowedOptions: Set<String> = [],
        argumentsSeparator: Unicode.Scalar = ":", sourceRewrite: SourceURLRewrite = SourceURLRewrite(), base64URLIncludesFilename: Bool = false
    ) {
        self.argumentsSeparator = argumentsSeparator
        self.sourceRewrite = sourceRewrite
        self.base64URLIncludesFilename = base64URLIncludesFilename
        self.defaultOptions = defaultOptions
        self.allowedOptions = allowedOptions
        self.keys = keys
        self.signatureSize = min(max(signatureSize, 1), 32)
        self.presets = presets
        self.maxDimension = max(maxDimension, 1)
        self.allowSecurityOptions = allowSecurityOptions
        self.trustedSignatures = trustedSignatures
        self.sourceCipher = sourceCipher
        self.onlyPresets = onlyPresets
    }

    private var applier: OptionApplier {
        OptionApplier(presets: presets, allowSecurityOptions: allowSecurityOptions, argumentsSeparator: argumentsSeparator)
    }

    /// Parses a request path.
    /// - Parameters:
    ///   - path: the path as received, beginning with `/`.
    ///   - now: the time `expires` is compared with.
    ///   - hints: the request's client hints, when the server reads them: the `dpr` and
    ///     width the options start from.
    /// - Throws: ``ProxyError``: 400 for a malformed URL, 403 for a bad signature or a
    ///   security option the parser does not allow,
    ///   404 for an expired URL.
    public func parse(path: String, now: Date = Date(), hints: ClientHints? = nil) throws(ProxyError) -> ProxyRequest {
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
        guard let signatureEnd = afterSlash.firstIndex(of: "/") else {
            throw .badRequest("missing source: the path has no '/' after its first segment; write /<signature>/<options…>/<source>")
        }
        let signature = afterSlash[..<signatureEnd]
        let restored = "/" + ProxyPathNormalization.redenormalized(afterSlash[signatureEnd...].dropFirst())
        let signedPath = Substring(restored)
        try URLSignature(keys: keys, size: signatureSize, trusted: trustedSignatures).verify(signature: signature, path: signedPath)

        let warnings = ParseWarnings()
        var applier = self.applier
        applier.warnings = warnings
        var options = hints.map { $0.applied(to: defaultOptions) } ?? defaultOptions
        if presets["default"] != nil {
            try applier.applyPreset("default", to: &options)
        }
        let segments = signedPath.fields(separatedBy: "/").dropFirst()
        var index = segments.startIndex
        if onlyPresets {
            try applyPresetNames(segments.first, with: applier, to: &options)
            index += 1
        } else {
            // Options are the segments with a ':'; the first without one starts the source
            // (base64 never contains ':'). Empty segments between options are skipped.
            while index < segments.endIndex, segments[index].isEmpty || segments[index].containsByte(argumentsSeparator) {
                if !segments[index].isEmpty {
                    try checkAllowed(segments[index])
                    try applier.apply(segments[index], to: &options)
                }
                index += 1
            }
        }
        let source = try ProxySource.decode(
            segments[index...], cipher: sourceCipher, rewrite: sourceRewrite, base64IncludesFilename: base64URLIncludesFilename
        )
        if let format = source.extension {
            options.format = format
            (options.bestFormat, options.thumbHash) = (false, false)
        }
        if let expires = options.expires, Double(expires) < now.timeIntervalSince1970.rounded(.down) {
            throw ProxyError(status: 404, message: "URL expired: its expires option (\(expires)) is in the past; ask for a freshly signed URL")
        }
        return ProxyRequest(source: source.url, options: options, extensionFormat: source.extension, warnings: warnings.all)
    }

    /// Refuses an option outside ``allowedOptions`` (403; imgproxy's 404), by its name as written.
    private func checkAllowed(_ segment: Substring) throws(ProxyError) {
        guard !allowedOptions.isEmpty else { return }
        let name = segment.fields(separatedBy: argumentsSeparator).first ?? segment
        guard allowedOptions.contains(String(name)) else {
            throw ProxyError(
                status: 403, message: "processing option '\(name.prefix(64))' is not allowed on this server; it allows \(allowedOptions.sorted().joined(separator: ", "))",
                imgproxyStatus: 404
            )
        }
    }

    /// Only-presets mode: `segment` names presets separated by `:`, applied in order.
    private func applyPresetNames(_ segment: Substring?, with applier: OptionApplier, to options: inout ProcessingOptions) throws(ProxyError) {
        guard let segment, !segment.isEmpty else {
            throw .badRequest("only presets are accepted: write /<signature>/<preset>[:<preset>…]/<source>")
        }
        for name in segment.fields(separatedBy: argumentsSeparator) {
            guard !name.isEmpty else {
                throw .badRequest("empty preset name in segment '\(segment.prefix(100))'; only presets are accepted: write <preset>[:<preset>…]")
            }
            do {
                try applier.applyPreset(String(name), to: &options)
            } catch {
                throw .badRequest("segment '\(segment.prefix(100))': \(error.message) (only presets are accepted in this server's URLs)")
            }
        }
    }

    /// Checks that every configured preset parses, so a bad preset fails at startup rather
    /// than on the first request that uses it.
    public func validatePresets() throws(ProxyError) {
        for name in presets.keys.sorted() {
            var options = ProcessingOptions()
            try applier.applyPreset(name, to: &options)
        }
    }

    /// Signs a path (everything after the signature segment, starting with `/`) with one
    /// key pair: the segment to put in front of it. For clients and tests.
    public static func signature(for path: String, key: SigningKey, signatureSize: Int = 32) -> String {
        URLSignature.sign(Substring(path), with: key, size: min(max(signatureSize, 1), 32))
    }
}
