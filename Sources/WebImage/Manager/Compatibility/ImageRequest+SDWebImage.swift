import Foundation

extension ImageManager {
    /// The ``ImageRequest`` SDWebImage's shape of a load makes: `url` with `options` and
    /// `context` (``defaultContext`` when `nil`), after ``optionsProcessor``. Every
    /// ``loadImage(from:options:context:progress:)``, image target and prefetch goes
    /// through here.
    ///
    /// Options and context knobs that are shorthands become the request's fields
    /// (``ImageOptions/fromLoaderOnly`` its query tiers `.none`, ``ImageOptions/cacheMemoryOnly``
    /// its store tiers memory only, ``ImageOptions/avoidDecodeImage`` the output
    /// ``ImageOutput/data``…). Image-target options and ``ImageContext/operationKey`` belong to
    /// ``ImageTarget/setImage(with:placeholder:options:context:progress:completed:)``: a load
    /// that passes them fails with ``ImageError/invalidRequest(field:reason:)``, as does a
    /// knob of the given context that cannot apply (an original cache for a result that is
    /// its own source, say). The manager's default context never fails a load this way.
    public func request(for url: URL?, options: ImageOptions = [], context: ImageContext? = nil) throws(ImageError) -> ImageRequest {
        try request(for: url, options: options, context: context, forTarget: false)
    }

    /// ``request(for:options:context:)``; `forTarget`: the image-target options and the
    /// operation key are the caller's to honour.
    func request(
        for url: URL?, options: ImageOptions, context: ImageContext?, forTarget: Bool
    ) throws(ImageError) -> ImageRequest {
        guard let url, !url.absoluteString.isEmpty else { throw .invalidURL("") }
        var options = options
        let strict = context != nil
        var context = context ?? defaultContext
        if let optionsProcessor {
            guard let processed = optionsProcessor(url, options, context) else {
                throw .invalidDownloadOperation("the options processor cancelled the load of \(url.absoluteString)")
            }
            (options, context) = processed
        }
        if !forTarget {
            for (option, name) in ImageOptions.targetOptionNames where options.contains(option) {
                throw .invalidRequest(field: "ImageOptions." + name, reason: "applies to image targets (setImage); drop it from this load")
            }
            if strict, context.operationKey != nil {
                throw .invalidRequest(field: "ImageContext.operationKey", reason: "names an image target's load (setImage); drop it from this load")
            }
        }
        return try ImageRequest(url: url, options: options, context: context, strict: strict)
    }
}

extension ImageRequest {
    /// The request `url` with `options` and `context` make (see
    /// ``ImageManager/request(for:options:context:)``); `strict`: the context is the
    /// caller's own, so a knob of it that cannot apply fails instead of being left out.
    init(url: URL, options: ImageOptions, context: ImageContext, strict: Bool) throws(ImageError) {
        var processing = ImageProcessing(
            thumbnailPixelSize: context.thumbnailPixelSize,
            transformer: context.transformer,
            firstFrameOnly: options.contains(.decodeFirstFrameOnly),
            scaleDownLimitBytes: options.contains(.scaleDownLargeImages) ? context.scaleDownLimitBytes : nil,
            // Undecoded bytes have no scale: the caller's is refused, the manager's default left out.
            scaleFactor: strict || !options.contains(.avoidDecodeImage) ? context.imageScaleFactor : nil
        )
        // Knobs of a thumbnail size or a transformer, when the request has one.
        if context.thumbnailPixelSize != nil || strict { processing.preserveAspectRatio = context.preserveAspectRatio }
        if context.transformer != nil {
            processing.transformsAnimations = options.contains(.transformAnimatedImage)
        } else if options.contains(.transformAnimatedImage) {
            throw .invalidRequest(field: "ImageOptions.transformAnimatedImage", reason: "applies to a transformer; set ImageContext.transformer or drop it")
        }
        let output: ImageOutput = options.contains(.avoidDecodeImage) ? .data : .image
        var caching = Caching(
            cache: context.cache,
            query: options.contains(.fromLoaderOnly) ? .none : context.queryCacheType,
            store: options.contains(.cacheMemoryOnly) ? context.storeCacheType.intersection(.memory) : context.storeCacheType,
            keyFilter: context.cacheKeyFilter,
            serializer: context.cacheSerializer
        )
        let originals = OriginalCaching(
            cache: context.originalCache,
            query: options.contains(.fromLoaderOnly) ? .none : context.originalQueryCacheType,
            store: options.contains(.cacheMemoryOnly) ? .none : context.originalStoreCacheType
        )
        let setsOriginals = context.originalCache != nil || context.originalQueryCacheType != .disk || context.originalStoreCacheType != .disk
        if !processing.isIdentity || !output.isImage || (strict && setsOriginals) { caching.originals = originals }
        self.init(
            source: .url(url), processing: processing, output: output, priority: options.downloadPriority, options: Options(options),
            caching: caching, limits: context.limits, maxSourceBytes: context.maxSourceBytes,
            requestModifier: context.requestModifier, responseModifier: context.responseModifier, decryptor: context.decryptor,
            loader: context.loader, coder: context.coder, callbackExecutor: context.callbackExecutor
        )
    }
}

extension ImageOptions {
    /// The options that are a request's flags of the same name, which have the same bits.
    static let requestFlags = ImageOptions(rawValue: ImageRequest.Options.names.reduce(0) { $0 | $1.0.rawValue })

    /// The options only image targets honour, with their names.
    static let targetOptionNames: [(ImageOptions, String)] = [
        (.avoidAutoSetImage, "avoidAutoSetImage"), (.delayPlaceholder, "delayPlaceholder"), (.avoidAutoCancelImage, "avoidAutoCancelImage"),
    ]

    /// The options of `request`'s flags of the same name.
    init(_ request: ImageRequest.Options) {
        self.init(rawValue: request.rawValue)
    }
}

extension ImageRequest.Options {
    /// The request flags among `options`.
    @inline(__always)
    init(_ options: ImageOptions) {
        self.init(rawValue: options.intersection(ImageOptions.requestFlags).rawValue)
    }
}
