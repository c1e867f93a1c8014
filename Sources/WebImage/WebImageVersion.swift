/// The version of the WebImage library, sent in the default `User-Agent`.
public enum WebImageVersion {
    /// Semantic version of this release.
    public static let current = "0.1.0"
}
