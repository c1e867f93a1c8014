import Foundation
import WebImage

/// A parsed proxy URL: the image to fetch and what to do with it.
public struct ProxyRequest: Sendable, Hashable {
    /// The source image's URL, decoded from base64 or from the `plain/` form.
    public var source: URL
    /// The processing options, presets expanded, the URL's extension applied as the format.
    public var options: ProcessingOptions
    /// The format named by the URL's extension (`.png` or `@png`), if any.
    public var extensionFormat: ImageFormat?
    /// What the parse read leniently, as imgproxy reads it (a boolean spelled `yes`, read
    /// as false): the server logs each with the request.
    public var warnings: [String]

    /// Creates a request.
    public init(source: URL, options: ProcessingOptions, extensionFormat: ImageFormat? = nil, warnings: [String] = []) {
        self.source = source
        self.options = options
        self.extensionFormat = extensionFormat
        self.warnings = warnings
    }
}
