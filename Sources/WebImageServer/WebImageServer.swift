import WebImage

/// The image proxy behind `webimage serve`: imgproxy's URL dialect on the WebImage pipeline.
public enum WebImageServer {
    /// The value of the `Server` response header.
    public static let serverHeader = "WebImage/\(WebImageVersion.current)"
}
