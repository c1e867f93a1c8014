/// How the image is resized to the requested width and height (imgproxy's `resizing_type`).
public enum ResizingType: String, Sendable, Hashable, CaseIterable {
    /// Keep the aspect ratio and fit inside the requested size.
    case fit
    /// Keep the aspect ratio, cover the requested size, and crop what sticks out.
    case fill
    /// Like ``fill``, but when the result would be smaller than the requested size, crop
    /// it to the requested aspect ratio instead.
    case fillDown = "fill-down"
    /// Resize to exactly the requested size, ignoring the aspect ratio.
    case force
    /// ``fill`` when the source and the requested size have the same orientation
    /// (both portrait or both landscape), ``fit`` otherwise.
    case auto
}
