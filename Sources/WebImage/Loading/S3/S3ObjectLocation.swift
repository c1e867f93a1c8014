import Foundation

/// The object an `s3://<bucket>/<key>[?<version ID>]` URL names, as imgproxy reads it:
/// the host is the bucket, the path after it the key, and the whole query, when there is
/// one, the object's version ID.
public struct S3ObjectLocation: Sendable, Hashable, CustomStringConvertible {
    /// The bucket's name.
    public var bucket: String
    /// The object's key, not percent-encoded (`photos/my cat.jpg`).
    public var key: String
    /// The object version to read; `nil` reads the current one.
    public var versionID: String?

    /// Creates a location.
    public init(bucket: String, key: String, versionID: String? = nil) {
        self.bucket = bucket
        self.key = key
        self.versionID = versionID
    }

    /// Reads an `s3:` URL: `s3://photos/cats/tom.jpg` is the key `cats/tom.jpg` in the
    /// bucket `photos`; `s3://photos/cats/tom.jpg?3HL4kqtJ…` reads that version of it.
    /// Percent escapes in the key are decoded (`my%20cat.jpg` is `my cat.jpg`).
    /// - Throws: ``ImageError/invalidURL(_:)`` when the scheme is not `s3`, or the bucket or
    ///   the key is missing.
    public init(url: URL) throws(ImageError) {
        let text = url.absoluteString
        guard url.scheme?.lowercased() == "s3" else {
            throw .invalidURL("\(text.prefix(200)): an S3 source needs the form s3://<bucket>/<key>")
        }
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false),
              let bucket = components.host, !bucket.isEmpty
        else {
            throw .invalidURL("\(text.prefix(200)): the S3 URL names no bucket; write s3://<bucket>/<key>")
        }
        let key = components.path.drop { $0 == "/" }
        guard !key.isEmpty else {
            throw .invalidURL("\(text.prefix(200)): the S3 URL names no object key after the bucket; write s3://\(bucket)/<key>")
        }
        let version = components.query.flatMap { $0.isEmpty ? nil : $0 }
        self.init(bucket: bucket, key: String(key), versionID: version)
    }

    /// `s3://<bucket>/<key>`, and `?<version ID>` when there is one.
    public var description: String {
        "s3://\(bucket)/\(key)" + (versionID.map { "?\($0)" } ?? "")
    }
}
