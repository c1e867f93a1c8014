extension DownloadOptions {
    /// The download a request asks for: its priority, cookies, certificate choice,
    /// modifiers, decryptor, source size limit and retry policy, and partial bytes for
    /// progressive previews.
    init(_ request: ImageRequest) {
        self.init(priority: request.priority)
        handleCookies = request.options.contains(.handleCookies)
        allowInvalidSSLCertificates = request.options.contains(.allowInvalidSSLCertificates)
        requestModifier = request.requestModifier
        responseModifier = request.responseModifier
        decryptor = request.decryptor
        maxBodySize = request.maxSourceBytes
        retryPolicy = request.retryPolicy
        userInfo = request.userInfo
        // Previews decode the bytes so far; a decryptor's input is not an image.
        wantsPartialData = request.options.contains(.progressiveLoad) && request.decryptor == nil && request.output == .image
    }

    /// Makes the download conditional: `etag` goes out as `If-None-Match` and
    /// `lastModified` as `If-Modified-Since`, each replacing one already set, so that an
    /// unchanged source answers `304` (``ImageError/cacheNotModified``).
    mutating func makeConditional(etag: String?, lastModified: String?) {
        if let etag { headers.replaceOrAdd(name: "If-None-Match", value: etag) }
        if let lastModified { headers.replaceOrAdd(name: "If-Modified-Since", value: lastModified) }
    }
}
