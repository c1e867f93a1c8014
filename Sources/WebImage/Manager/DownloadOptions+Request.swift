extension DownloadOptions {
    /// The download a manager request asks for: its priority, cookies, certificate choice,
    /// modifiers, decryptor and source size limit.
    init(options: ImageOptions, context: ImageContext) {
        self.init(priority: options.downloadPriority)
        handleCookies = options.contains(.handleCookies)
        allowInvalidSSLCertificates = options.contains(.allowInvalidSSLCertificates)
        requestModifier = context.requestModifier
        responseModifier = context.responseModifier
        decryptor = context.decryptor
        maxBodySize = context.maxSourceBytes
    }
}
