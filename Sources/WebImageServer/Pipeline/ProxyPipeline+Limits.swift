import WebImage

extension ProxyPipeline {
    /// The manager's context with a URL's own limits in place of the server's; `nil` (the
    /// manager's default context) when the URL sets none.
    func context(for limits: URLSecurityLimits) -> ImageContext? {
        guard !limits.isEmpty else { return nil }
        var context = manager.defaultContext
        if let pixels = limits.maxSourceResolution { context.limits.maxPixels = pixels }
        if let frames = limits.maxAnimationFrames { context.limits.maxFrames = frames }
        if let framePixels = limits.maxAnimationFrameResolution { context.limits.maxFramePixels = framePixels > 0 ? framePixels : nil }
        if let bytes = limits.maxSourceFileSize { context.maxSourceBytes = bytes > 0 ? bytes : Int.max }
        return context
    }
}
