import WebImage

extension ProcessingOptions {
    /// The source formats served as they are: ``skipProcessing``, and when the URL names a
    /// format, only that one (a source is never served as-is in another format than asked).
    public var passthroughFormats: Set<ImageFormat> {
        guard let format else { return skipProcessing }
        return skipProcessing.contains(format) ? [format] : []
    }
}
