import WebImage

extension ProxyPipeline {
    /// Puts a URL's own limits on `request` in place of the server's.
    static func apply(_ limits: URLSecurityLimits, to request: inout ImageRequest) {
        if let pixels = limits.maxSourceResolution { request.limits.maxPixels = pixels }
        if let frames = limits.maxAnimationFrames { request.limits.maxFrames = frames }
        if let framePixels = limits.maxAnimationFrameResolution { request.limits.maxFramePixels = framePixels > 0 ? framePixels : nil }
        if let bytes = limits.maxSourceFileSize { request.maxSourceBytes = bytes > 0 ? bytes : Int.max }
    }
}
