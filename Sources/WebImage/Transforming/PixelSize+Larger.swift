extension PixelSize {
    /// Whichever of `a` and `b` has more pixels (`a` when they have as many).
    public static func larger(_ a: PixelSize, _ b: PixelSize) -> PixelSize {
        b.pixelCount > a.pixelCount ? b : a
    }

    /// The size with the most pixels among `sizes` (the first of equals); zero for none.
    public static func largest(of sizes: [PixelSize]) -> PixelSize {
        sizes.reduce(sizes.first ?? .zero) { larger($0, $1) }
    }

    /// Width × height, as a `Double` (no overflow).
    public var pixelCount: Double { Double(width) * Double(height) }
}
