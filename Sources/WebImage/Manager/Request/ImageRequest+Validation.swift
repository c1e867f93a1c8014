extension ImageRequest {
    /// Checks that every field set applies to what the request asks for; throws
    /// ``ImageError/invalidRequest(field:reason:)`` naming the first that does not.
    public func validate() throws(ImageError) {
        try validateSource()
        if caching.cachesUnderAnsweringSource, alternativeSources.isEmpty {
            throw .invalidRequest(
                field: "caching.cachesUnderAnsweringSource",
                reason: "applies to results loaded from alternative sources; set alternativeSources or drop it"
            )
        }
        if processing.preferEmbeddedThumbnail, processing.thumbnailPixelSize != nil {
            throw .invalidRequest(
                field: "processing.preferEmbeddedThumbnail",
                reason: "cannot be combined with processing.thumbnailPixelSize: an embedded thumbnail's size is not known before the decode; drop one of them"
            )
        }
        if !processing.preserveAspectRatio, processing.thumbnailPixelSize == nil {
            throw .invalidRequest(field: "processing.preserveAspectRatio", reason: "applies to a thumbnail size; set processing.thumbnailPixelSize or drop it")
        }
        if !processing.transformsAnimations, processing.transformer == nil {
            throw .invalidRequest(field: "processing.transformsAnimations", reason: "applies to a transformer; set processing.transformer or drop it")
        }
        if !processing.transformsAnimations, processing.transformer != nil, outputIsStill {
            throw .invalidRequest(
                field: "processing.transformsAnimations",
                reason: "applies to animations, and this request's output is a still image (the first frame only, a ThumbHash, or a format without frames)"
            )
        }
        if let scale = processing.scaleFactor, !(scale.isFinite && scale > 0) {
            throw .invalidRequest(field: "processing.scaleFactor", reason: "must be a positive number of pixels per point, e.g. 2 for an @2x image")
        }
        if options.contains(.queryMemoryDataSync), !options.contains(.queryMemoryData) {
            throw .invalidRequest(field: "options.queryMemoryDataSync", reason: "has no effect without options.queryMemoryData; add it or drop this one")
        }
        if caching.originals != nil, processing.isIdentity, output.isImage {
            throw .invalidRequest(
                field: "caching.originals",
                reason: "applies to a processed or encoded result, whose source is cached apart; this request's result is its source, cached under caching"
            )
        }
        switch output {
        case .image:
            return
        case .data:
            if let field = processingFieldSet {
                throw .invalidRequest(field: field, reason: "needs a decoded image, and the output .data is not decoded; ask for .image")
            }
            try refuse([.progressiveLoad, .queryMemoryData], because: "applies to decoded images; the output .data is the source's bytes")
        case .encoded(let encoding, let passthrough):
            try encoding.validate()
            try validateEncodedOutput()
            if passthrough == .always, let field = processingFieldSet {
                throw .invalidRequest(field: field, reason: "cannot apply: passthrough .always serves the source's bytes unprocessed")
            }
        case .details:
            try validateEncodedOutput()
            if let field = processingFieldSet {
                throw .invalidRequest(field: field, reason: "cannot apply: details describe the source as it is")
            }
        case .thumbHash:
            try validateEncodedOutput()
        }
    }

    private func validateSource() throws(ImageError) {
        guard case .custom = source else { return }
        let urlOnly = "applies to URL sources; a custom source's closure loads the bytes itself"
        if loader != nil { throw .invalidRequest(field: "loader", reason: urlOnly) }
        if sourceConditions != nil { throw .invalidRequest(field: "sourceConditions", reason: urlOnly) }
        if retryPolicy != nil { throw .invalidRequest(field: "retryPolicy", reason: urlOnly) }
        if requestModifier != nil { throw .invalidRequest(field: "requestModifier", reason: urlOnly) }
        if responseModifier != nil { throw .invalidRequest(field: "responseModifier", reason: urlOnly) }
        if decryptor != nil { throw .invalidRequest(field: "decryptor", reason: urlOnly) }
        if caching.keyFilter != nil { throw .invalidRequest(field: "caching.keyFilter", reason: "maps URLs to keys; a custom source is cached under its own key") }
        try refuse([.handleCookies, .allowInvalidSSLCertificates], because: urlOnly)
        if priority != .normal, output.isImage {
            throw .invalidRequest(field: "priority", reason: "orders downloads and work slots; a custom source's image load has neither")
        }
    }

    private func validateEncodedOutput() throws(ImageError) {
        try refuse([.progressiveLoad, .queryMemoryData], because: "applies to decoded images; an encoded output is handed out whole")
        if processing.scaleFactor != nil {
            throw .invalidRequest(field: "processing.scaleFactor", reason: "applies to decoded images (their size in points); an encoded output's pixels carry no scale")
        }
        if callbackExecutor != nil {
            throw .invalidRequest(field: "callbackExecutor", reason: "applies to the completions of loadImage and image targets; loadVariant returns to the task that awaits it")
        }
        if caching.serializer != nil {
            throw .invalidRequest(field: "caching.serializer", reason: "applies to images and data; an encoded output's bytes are its encoding's")
        }
    }

    /// Throws for the first of `flags` that is set.
    private func refuse(_ flags: Options, because reason: String) throws(ImageError) {
        for (flag, name) in Options.names where flags.contains(flag) && options.contains(flag) {
            throw .invalidRequest(field: "options." + name, reason: reason)
        }
    }

    /// Whether the output is one frame whatever the source: the first frame is asked for, or
    /// a ThumbHash, or an encoding in formats that cannot carry frames.
    private var outputIsStill: Bool {
        if processing.firstFrameOnly { return true }
        switch output {
        case .thumbHash: return true
        case .encoded(let encoding, _): return !encoding.format.canAnimate
        case .image, .data, .details: return false
        }
    }

    /// The name of the first processing field that differs from ``ImageProcessing/none``.
    var processingFieldSet: String? {
        if processing.thumbnailPixelSize != nil { return "processing.thumbnailPixelSize" }
        if processing.transformer != nil { return "processing.transformer" }
        if processing.firstFrameOnly { return "processing.firstFrameOnly" }
        if processing.scaleDownLimitBytes != nil { return "processing.scaleDownLimitBytes" }
        if processing.preferEmbeddedThumbnail { return "processing.preferEmbeddedThumbnail" }
        if !processing.transformsAnimations { return "processing.transformsAnimations" }
        if !processing.preserveAspectRatio { return "processing.preserveAspectRatio" }
        if processing.scaleFactor != nil { return "processing.scaleFactor" }
        return nil
    }
}
