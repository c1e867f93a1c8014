/// The scale factor an image's name declares: the `@2x` / `@3x` convention of asset files
/// (SDWebImage's `SDImageScaleFactorForKey`).
public enum ImageScale {
    /// The scale factors a name can declare, in the order they are looked for.
    public static let factors: [Int] = [2, 3]

    /// The scale factor `key` declares: 2 when it contains `@2x.`, 3 for `@3x.` (`@2x.`
    /// is looked for first), and for an `http` or `https` URL also the percent-encoded
    /// `%402x.` / `%403x.`; 1 otherwise, and for a `nil` key or one shorter than 8
    /// characters (the shortest name with a scale, `a@2x.png`).
    ///
    /// The manager takes it from the cache key of a request's source (after the key
    /// filter), so a thumbnail or transformed key keeps the scale of its source's name;
    /// ``ImageProcessing/scaleFactor`` overrides it.
    public static func factor(forKey key: String?) -> Double {
        guard let key, key.utf8.count >= 8 else { return 1 }
        let isHTTP = key.hasPrefix("http://") || key.hasPrefix("https://")
        // One pass over the bytes settles the usual key, which has neither `@` nor `%40`.
        let marks = isHTTP ? key.utf8.contains { $0 == UInt8(ascii: "@") || $0 == UInt8(ascii: "%") } : key.utf8.contains(UInt8(ascii: "@"))
        guard marks else { return 1 }
        for factor in factors {
            if key.contains("@\(factor)x.") { return Double(factor) }
            if isHTTP, key.contains("%40\(factor)x.") { return Double(factor) }
        }
        return 1
    }
}
