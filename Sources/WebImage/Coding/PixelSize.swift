/// A size in pixels.
public struct PixelSize: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Width in pixels.
    public var width: Int
    /// Height in pixels.
    public var height: Int

    /// Creates a size of `width` × `height` pixels.
    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    /// Zero by zero.
    public static let zero = PixelSize(width: 0, height: 0)

    /// `width × height`.
    public var area: Int { width * height }

    /// `"WxH"`, as used in cache keys and logs.
    public var description: String { "\(width)x\(height)" }
}
