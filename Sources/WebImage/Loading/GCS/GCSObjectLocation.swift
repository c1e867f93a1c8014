import Foundation

/// The object a `gs://<bucket>/<object>[?<generation>]` URL names, as imgproxy reads it: the
/// host is the bucket, the path after it the object's name, and a query that is a positive
/// integer the object generation to read. A query that is not one is ignored, as imgproxy
/// ignores it.
public struct GCSObjectLocation: Sendable, Hashable, CustomStringConvertible {
    /// The bucket's name.
    public var bucket: String
    /// The object's name, not percent-encoded (`photos/my cat.jpg`).
    public var name: String
    /// The object generation to read; `nil` reads the live one.
    public var generation: Int64?

    /// Creates a location.
    public init(bucket: String, name: String, generation: Int64? = nil) {
        self.bucket = bucket
        self.name = name
        self.generation = generation
    }

    /// Reads a `gs:` URL: `gs://photos/cats/tom.jpg` is the object `cats/tom.jpg` in the
    /// bucket `photos`; `gs://photos/cats/tom.jpg?1700000000000000` reads that generation of
    /// it. Percent escapes in the name are decoded (`my%20cat.jpg` is `my cat.jpg`).
    /// - Throws: ``ImageError/invalidURL(_:)`` when the scheme is not `gs`, the bucket or the
    ///   object name is missing, or the bucket's name is not one GCS allows.
    public init(url: URL) throws(ImageError) {
        let text = url.absoluteString
        guard url.scheme?.lowercased() == "gs" else {
            throw .invalidURL("\(text.prefix(200)): a GCS source needs the form gs://<bucket>/<object>")
        }
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false),
              let bucket = components.host, !bucket.isEmpty
        else {
            throw .invalidURL("\(text.prefix(200)): the GCS URL names no bucket; write gs://<bucket>/<object>")
        }
        guard Self.isValidBucketName(bucket) else {
            throw .invalidURL(
                "\(text.prefix(200)): '\(bucket.prefix(100))' is not a valid GCS bucket name: 3 to 63 lower-case letters, digits, "
                    + "hyphens, underscores and dots (up to 222 with dots), starting and ending with a letter or digit"
            )
        }
        let name = components.path.drop { $0 == "/" }
        guard !name.isEmpty else {
            throw .invalidURL("\(text.prefix(200)): the GCS URL names no object after the bucket; write gs://\(bucket)/<object>")
        }
        let generation = components.query.flatMap { Int64($0) }.flatMap { $0 > 0 ? $0 : nil }
        self.init(bucket: bucket, name: String(name), generation: generation)
    }

    /// `gs://<bucket>/<object>`, and `?<generation>` when there is one.
    public var description: String {
        "gs://\(bucket)/\(name)" + (generation.map { "?\($0)" } ?? "")
    }

    /// Whether `bucket` follows GCS's rules for bucket names: lower-case letters, digits,
    /// hyphens, underscores and dots; a letter or digit first and last; 3 to 63 characters,
    /// or up to 222 when it has dots, each dot-separated part at most 63.
    static func isValidBucketName(_ bucket: String) -> Bool {
        let bytes = Array(bucket.utf8)
        func isLetterOrDigit(_ byte: UInt8) -> Bool {
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
        }
        let hasDots = bytes.contains(UInt8(ascii: "."))
        guard bytes.count >= 3, bytes.count <= (hasDots ? 222 : 63), let first = bytes.first, let last = bytes.last,
              isLetterOrDigit(first), isLetterOrDigit(last),
              bytes.allSatisfy({ isLetterOrDigit($0) || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: ".") })
        else { return false }
        return bucket.split(separator: ".", omittingEmptySubsequences: false).allSatisfy { (1...63).contains($0.utf8.count) }
    }
}
