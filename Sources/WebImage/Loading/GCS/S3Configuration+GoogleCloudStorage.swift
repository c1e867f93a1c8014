extension S3Configuration {
    /// GCS's own host, whose XML API is S3-compatible.
    public static let googleCloudStorageEndpoint = "https://storage.googleapis.com"

    /// Cloud Storage through its S3-compatible XML API, with an HMAC key of the
    /// interoperability settings (its access ID `GOOG1…` and its secret): path-style requests
    /// signed with AWS Signature Version 4 for the region `auto`. An ``S3ImageLoader`` with
    /// it loads `s3://<bucket>/<object>` URLs from GCS; ``GCSImageLoader`` with
    /// ``GCSCredentials/hmac(_:)`` uses it for `gs://` URLs.
    /// - Parameters:
    ///   - hmacKey: the HMAC key: its access ID and secret.
    ///   - endpoint: the XML API's server; GCS's own by default.
    public static func googleCloudStorage(
        hmacKey: AWSCredentials, endpoint: String = S3Configuration.googleCloudStorageEndpoint
    ) -> S3Configuration {
        S3Configuration(endpoint: endpoint, region: "auto", usesPathStyle: true, credentials: hmacKey)
    }
}
