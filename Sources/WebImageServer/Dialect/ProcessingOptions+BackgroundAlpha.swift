import WebImage

extension ProcessingOptions {
    /// ``background`` with ``backgroundAlpha`` as its alpha: what transparent areas and
    /// added space are filled with. `nil` without a background.
    public var effectiveBackground: ImageColor? {
        guard var color = background else { return nil }
        if let backgroundAlpha { color.alpha = UInt8((backgroundAlpha * 255).rounded()) }
        return color
    }
}
