import Foundation

/// The endpoints the standard variables give AWS services: `AWS_ENDPOINT_URL_<SERVICE>`
/// (`AWS_ENDPOINT_URL_S3`, `AWS_ENDPOINT_URL_STS`), else `AWS_ENDPOINT_URL` for every service.
public struct AWSServiceEndpoints: Sendable {
    private let environment: AWSEnvironment

    /// The endpoints of `environment`'s variables.
    public init(environment: [String: String]) {
        self.environment = AWSEnvironment(environment)
    }

    /// The endpoint the variables give S3, or `nil` for AWS's own.
    public var s3: String? { endpoint(service: "S3") }

    /// The endpoint the variables give `service` (its identifier as the variables spell it:
    /// `S3`, `STS`), or `nil` when they give none.
    public func endpoint(service: String) -> String? {
        environment["AWS_ENDPOINT_URL_\(service.uppercased())"] ?? environment["AWS_ENDPOINT_URL"]
    }

    /// The STS endpoint: the one the variables give, else the regional one of `region`
    /// (`https://sts.<region>.amazonaws.com`), else the global `https://sts.amazonaws.com`.
    /// - Throws: ``ImageError/credentialsUnavailable(_:)`` when the given endpoint is not an
    ///   http(s) URL with a host.
    public func sts(region: String?) throws(ImageError) -> URL {
        if let text = endpoint(service: "STS") {
            let lowered = text.lowercased()
            let full = lowered.hasPrefix("http://") || lowered.hasPrefix("https://") ? text : "https://" + text
            guard let url = URL(string: full), let host = url.host, !host.isEmpty else {
                throw .credentialsUnavailable("the STS endpoint '\(text)' (AWS_ENDPOINT_URL_STS or AWS_ENDPOINT_URL) is not a URL with a host, e.g. https://sts.eu-west-1.amazonaws.com")
            }
            return url
        }
        guard let region, !region.isEmpty else { return URL(string: "https://sts.amazonaws.com")! }
        let domain = region.hasPrefix("cn-") ? "amazonaws.com.cn" : "amazonaws.com"
        guard let url = URL(string: "https://sts.\(region).\(domain)") else {
            throw .credentialsUnavailable("the region '\(region)' cannot name an STS endpoint; set AWS_REGION to a region such as eu-west-1")
        }
        return url
    }
}
