import Foundation
import WebImage

/// The settings of ``SettingSection/sources``.
extension ServerSetting {
    /// The settings of ``SettingSection/sources``, in the order the help lists them.
    static let sourceSettings: [ServerSetting] = [
        allowedSource, allowLoopback, allowPrivate, allowLinkLocal, proxy, noProxy, trustProxyAddress, caFile, clientCert, clientKey,
        userAgent, maxRedirects, downloadRetries, downloadTimeout, sourceKeepAliveTimeout, maxDownloads, maxDownloadsPerHost, maxDownloadStartsPerSecond, localFilesystemRoot, baseURL,
        urlReplacements, useS3, s3Endpoint, s3Region, s3EndpointUsePathStyle, s3AssumeRoleARN, s3AssumeRoleExternalID, s3AllowedBucket,
        s3DeniedBucket, useGCS, gcsKey, gcsEndpoint, gcsHMACAccessID, gcsHMACSecret, gcsAllowedBucket, gcsDeniedBucket, fallbackImageData,
        fallbackImagePath, fallbackImageURL, fallbackImageHTTPCode, fallbackImageTTL,
    ]

    /// `--allowed-source`: source URL prefixes allowed, e.g. `https://images.example.com/`, checked on the normalised URL and on every redirect.
    public static let allowedSource = list(
        "allowedSource", .sources, \.sources.allowedSources, placeholder: "PREFIX",
        imgproxy: [own("IMGPROXY_ALLOWED_SOURCES")],
        default: "any public http(s) source",
        help: "source URL prefixes allowed, e.g. `https://images.example.com/`, checked on the normalised URL and on every redirect",
        check: { setting, prefixes throws(ServerConfigError) in
            for prefix in prefixes {
                if let problem = SourceGuard.problem(withPrefix: prefix) { throw setting.error(problem) }
            }
        }
    )

    /// `--allow-loopback`: allow sources on 127/8 and ::1.
    public static let allowLoopback = bool(
        "allowLoopback", .sources, \.sources.allowLoopback,
        imgproxy: [same("IMGPROXY_ALLOW_LOOPBACK_SOURCE_ADDRESSES")],
        help: "allow sources on 127/8 and ::1"
    )

    /// `--allow-private`: allow sources on private networks (10/8, 172.16/12, 192.168/16, fc00::/7) and CGNAT (100.64/10).
    public static let allowPrivate = bool(
        "allowPrivate", .sources, \.sources.allowPrivate,
        imgproxy: [same("IMGPROXY_ALLOW_PRIVATE_SOURCE_ADDRESSES")],
        imgproxyDefault: true,
        help: "allow sources on private networks (10/8, 172.16/12, 192.168/16, fc00::/7) and CGNAT (100.64/10)"
    )

    /// `--allow-link-local`: allow sources on 169.254/16 and fe80::/10 (cloud metadata lives there).
    public static let allowLinkLocal = bool(
        "allowLinkLocal", .sources, \.sources.allowLinkLocal,
        imgproxy: [same("IMGPROXY_ALLOW_LINK_LOCAL_SOURCE_ADDRESSES")],
        help: "allow sources on 169.254/16 and fe80::/10 (cloud metadata lives there)"
    )

    /// `--proxy`: HTTP proxy sources are fetched through (`http://user:pass@host:port`); empty: none.
    public static let proxy = ServerSetting(
        "proxy", .sources, kind: .custom, placeholder: "URL",
        default: "`HTTP_PROXY` / `HTTPS_PROXY`",
        help: "HTTP proxy sources are fetched through (`http://user:pass@host:port`); empty: none"
    ) { setting, values, config throws(ServerConfigError) in
        config.sources.httpProxy = values.last ?? ""
        config.sources.httpsProxy = values.last ?? ""
    }

    /// `--no-proxy`: source hosts fetched direct, as curl reads `NO_PROXY`.
    public static let noProxy = ServerSetting(
        "noProxy", .sources, kind: .custom, placeholder: "LIST",
        default: "`NO_PROXY`",
        help: "source hosts fetched direct, as curl reads `NO_PROXY`"
    ) { setting, values, config throws(ServerConfigError) in
        config.sources.noProxy = values.last ?? ""
    }

    /// `--trust-proxy-address`: exempt the proxy's own address from the address checks (sources behind it are still checked).
    public static let trustProxyAddress = bool(
        "trustProxyAddress", .sources, \.sources.trustProxyAddress,
        help: "exempt the proxy's own address from the address checks (sources behind it are still checked)"
    )

    /// `--ca-file`: PEM certificate authorities trusted for sources, besides the system's.
    public static let caFile = optionalText(
        "caFile", .sources, \.sources.caFile, placeholder: "FILE",
        help: "PEM certificate authorities trusted for sources, besides the system's"
    )

    /// `--client-cert`: PEM client certificate for sources that require one.
    public static let clientCert = optionalText(
        "clientCert", .sources, \.sources.clientCertificateFile, placeholder: "FILE",
        help: "PEM client certificate for sources that require one"
    )

    /// `--client-key`: PEM private key of `--client-cert`.
    public static let clientKey = optionalText(
        "clientKey", .sources, \.sources.clientKeyFile, placeholder: "FILE",
        default: "in the `--client-cert` file",
        help: "PEM private key of `--client-cert`"
    )

    /// `--user-agent`: `User-Agent` sent to sources.
    public static let userAgent = optionalText(
        "userAgent", .sources, \.sources.userAgent, placeholder: "UA",
        imgproxy: [own("IMGPROXY_USER_AGENT")],
        default: "WebImage's",
        help: "`User-Agent` sent to sources"
    )

    /// `--max-redirects`: redirects followed per source download.
    public static let maxRedirects = integer(
        "maxRedirects", .sources, \.sources.maxRedirects, bounds: .atLeast(0),
        imgproxy: [same("IMGPROXY_MAX_REDIRECTS")],
        help: "redirects followed per source download"
    )

    /// `--download-retries`: retries of a source download that failed in a way another try may mend (refused, reset or timed-out connection; 408, 429, 500, 502, 503, 504), with backoff and the source's `Retry-After` (up to 10 s) honoured; `0`: none, as imgproxy.
    public static let downloadRetries = integer(
        "downloadRetries", .sources, \.sources.downloadRetries, bounds: .atLeast(0),
        help: "retries of a source download that failed in a way another try may mend (refused, reset or timed-out connection; 408, 429, 500, 502, 503, 504), with backoff and the source's `Retry-After` (up to 10 s) honoured; `0`: none, as imgproxy"
    )

    /// `--download-timeout`: longest a source download may take, redirects included (also its idle timeout).
    public static let downloadTimeout = seconds(
        "downloadTimeout", .sources, \.sources.downloadTimeout,
        imgproxy: [same("IMGPROXY_DOWNLOAD_TIMEOUT")],
        imgproxyDefault: 5,
        help: "longest a source download may take, redirects included (also its idle timeout)"
    )

    /// `--source-keep-alive-timeout`: how long a connection to a source stays open, idle, for the next download; `0` closes each after its download.
    public static let sourceKeepAliveTimeout = seconds(
        "sourceKeepAliveTimeout", .sources, \.sources.sourceKeepAliveTimeout, zeroIsOff: true,
        imgproxy: [same("IMGPROXY_CLIENT_KEEP_ALIVE_TIMEOUT")],
        imgproxyDefault: 90,
        help: "how long a connection to a source stays open, idle, for the next download; `0` closes each after its download"
    )

    /// `--max-downloads`: source downloads running at once; more wait, holding no worker (a worker is taken once the source's bytes are in).
    public static let maxDownloads = integer(
        "maxDownloads", .sources, \.sources.maxDownloads, bounds: .atLeast(1),
        help: "source downloads running at once; more wait, holding no worker (a worker is taken once the source's bytes are in)"
    )

    /// `--max-downloads-per-host`: source downloads from one host running at once: a slow host holds at most this many, and downloads from other hosts go past its waiting ones.
    public static let maxDownloadsPerHost = integer(
        "maxDownloadsPerHost", .sources, \.sources.maxDownloadsPerHost, bounds: .atLeast(1),
        help: "source downloads from one host running at once: a slow host holds at most this many, and downloads from other hosts go past its waiting ones"
    )

    /// `--max-download-starts-per-second`: source downloads started each second at most, in bursts of as many after a quiet time, so that a burst of cache misses reaches its origins at a steady pace; `0`: no limit.
    public static let maxDownloadStartsPerSecond = integer(
        "maxDownloadStartsPerSecond", .sources, \.sources.maxDownloadStartsPerSecond, bounds: .atLeast(0),
        help: "source downloads started each second at most, in bursts of as many after a quiet time, so that a burst of cache misses reaches its origins at a steady pace; `0`: no limit"
    )

    /// `--local-filesystem-root`: directory `local:///path` sources are read from.
    public static let localFilesystemRoot = optionalText(
        "localFilesystemRoot", .sources, \.sources.localFilesystemRoot, placeholder: "DIR",
        imgproxy: [same("IMGPROXY_LOCAL_FILESYSTEM_ROOT")],
        default: "none: `local://` refused",
        help: "directory `local:///path` sources are read from"
    )

    /// `--base-url`: put in front of source URLs that do not start with it.
    public static let baseURL = optionalText(
        "baseURL", .sources, \.sources.baseURL, placeholder: "URL",
        flag: "base-url",
        imgproxy: [same("IMGPROXY_BASE_URL")],
        help: "put in front of source URLs that do not start with it"
    )

    /// `--url-replacements`: source URL rewrites, `pattern=replacement;…`: a source starting with the pattern (`*` is any run without `/`) has that start replaced (`$1` is what the first `*` matched); the allowed sources and address checks see the result.
    public static let urlReplacements = ServerSetting(
        "urlReplacements", .sources, kind: .custom, placeholder: "LIST",
        imgproxy: [same("IMGPROXY_URL_REPLACEMENTS")],
        default: "none",
        help: "source URL rewrites, `pattern=replacement;…`: a source starting with the pattern (`*` is any run without `/`) has that start replaced (`$1` is what the first `*` matched); the allowed sources and address checks see the result"
    ) { setting, values, config throws(ServerConfigError) in
        let value = values.last ?? ""
        config.sources.urlReplacements = value.isEmpty ? [] : try SourceURLRewrite.replacements(from: value)
    }

    /// `--use-s3`: load `s3://<bucket>/<key>[?<version ID>]` sources, signed with the credentials the AWS SDKs find: `AWS_ACCESS_KEY_ID`, the profile `AWS_PROFILE` of `~/.aws/credentials`, a web identity token, the ECS or EC2 metadata endpoint (none: unsigned).
    public static let useS3 = bool(
        "useS3", .sources, \.sources.useS3,
        imgproxy: [same("IMGPROXY_USE_S3")],
        help: "load `s3://<bucket>/<key>[?<version ID>]` sources, signed with the credentials the AWS SDKs find: `AWS_ACCESS_KEY_ID`, the profile `AWS_PROFILE` of `~/.aws/credentials`, a web identity token, the ECS or EC2 metadata endpoint (none: unsigned)"
    )

    /// `--s3-endpoint`: an S3-compatible server (no scheme: `http://`), reached on any address, loopback and private ones too.
    public static let s3Endpoint = optionalText(
        "s3Endpoint", .sources, \.sources.s3Endpoint, placeholder: "URL",
        imgproxy: [same("IMGPROXY_S3_ENDPOINT")],
        default: "`AWS_ENDPOINT_URL_S3`, else `AWS_ENDPOINT_URL`, else AWS",
        help: "an S3-compatible server (no scheme: `http://`), reached on any address, loopback and private ones too"
    )

    /// `--s3-region`: region requests are signed for.
    public static let s3Region = optionalText(
        "s3Region", .sources, \.sources.s3Region, placeholder: "REGION",
        imgproxy: [same("IMGPROXY_S3_REGION")],
        default: "`AWS_REGION`, else `AWS_DEFAULT_REGION`, else the profile's `region`, else `us-east-1`",
        help: "region requests are signed for"
    )

    /// `--s3-endpoint-use-path-style`: with `--s3-endpoint`: the bucket in the path (`<endpoint>/<bucket>/<key>`); off: a subdomain of the endpoint's host.
    public static let s3EndpointUsePathStyle = bool(
        "s3EndpointUsePathStyle", .sources, \.sources.s3EndpointUsePathStyle,
        imgproxy: [same("IMGPROXY_S3_ENDPOINT_USE_PATH_STYLE")],
        help: "with `--s3-endpoint`: the bucket in the path (`<endpoint>/<bucket>/<key>`); off: a subdomain of the endpoint's host"
    )

    /// `--s3-assume-role-arn`: the IAM role S3 requests are signed as: STS `AssumeRole`, signed with the credentials the AWS SDKs find.
    public static let s3AssumeRoleARN = optionalText(
        "s3AssumeRoleARN", .sources, \.sources.s3AssumeRoleARN, placeholder: "ARN",
        flag: "s3-assume-role-arn",
        imgproxy: [same("IMGPROXY_S3_ASSUME_ROLE_ARN")],
        help: "the IAM role S3 requests are signed as: STS `AssumeRole`, signed with the credentials the AWS SDKs find",
        check: { setting, arn throws(ServerConfigError) in
            if !arn.hasPrefix("arn:") { throw setting.error("'\(arn.prefix(100))' is not a role ARN, e.g. arn:aws:iam::123456789012:role/images") }
        }
    )

    /// `--s3-assume-role-external-id`: the external ID the role of `--s3-assume-role-arn` asks for.
    public static let s3AssumeRoleExternalID = optionalText(
        "s3AssumeRoleExternalID", .sources, \.sources.s3AssumeRoleExternalID, placeholder: "ID",
        flag: "s3-assume-role-external-id",
        imgproxy: [same("IMGPROXY_S3_ASSUME_ROLE_EXTERNAL_ID")],
        help: "the external ID the role of `--s3-assume-role-arn` asks for"
    )

    /// `--s3-allowed-bucket`: the only buckets `s3://` sources may name.
    public static let s3AllowedBucket = list(
        "s3AllowedBucket", .sources, \.sources.s3AllowedBuckets, placeholder: "NAME",
        imgproxy: [same("IMGPROXY_S3_ALLOWED_BUCKETS")],
        default: "any",
        help: "the only buckets `s3://` sources may name"
    )

    /// `--s3-denied-bucket`: buckets `s3://` sources may not name.
    public static let s3DeniedBucket = list(
        "s3DeniedBucket", .sources, \.sources.s3DeniedBuckets, placeholder: "NAME",
        imgproxy: [same("IMGPROXY_S3_DENIED_BUCKETS")],
        help: "buckets `s3://` sources may not name"
    )

    /// `--use-gcs`: load `gs://<bucket>/<object>[?<generation>]` sources from Google Cloud Storage, as the service account of `--gcs-key`, with the HMAC key of `--gcs-hmac-access-id`, or unauthenticated (public objects).
    public static let useGCS = bool(
        "useGCS", .sources, \.sources.useGCS, flag: "use-gcs",
        imgproxy: [same("IMGPROXY_USE_GCS")],
        help: "load `gs://<bucket>/<object>[?<generation>]` sources from Google Cloud Storage, as the service account of `--gcs-key`, with the HMAC key of `--gcs-hmac-access-id`, or unauthenticated (public objects)"
    )

    /// `--gcs-key`: a service account's JSON key, its content: `gs://` requests carry the account's access tokens (its `token_uri` gives them).
    public static let gcsKey = optionalText(
        "gcsKey", .sources, \.sources.gcsKey, placeholder: "JSON",
        imgproxy: [same("IMGPROXY_GCS_KEY")],
        default: "none: unauthenticated",
        help: "a service account's JSON key, its content: `gs://` requests carry the account's access tokens (its `token_uri` gives them)",
        check: { setting, json throws(ServerConfigError) in
            do throws(ImageError) {
                _ = try GCSServiceAccountKey(json: Data(json.utf8))
            } catch {
                throw setting.error(error.description)
            }
        }
    )

    /// `--gcs-endpoint`: the GCS server (a `/storage/v1` path names the same server; no scheme: `https://`).
    public static let gcsEndpoint = optionalText(
        "gcsEndpoint", .sources, \.sources.gcsEndpoint, placeholder: "URL",
        imgproxy: [same("IMGPROXY_GCS_ENDPOINT")],
        default: "`https://storage.googleapis.com`",
        help: "the GCS server (a `/storage/v1` path names the same server; no scheme: `https://`)",
        check: { setting, endpoint throws(ServerConfigError) in
            do throws(ImageError) {
                _ = try GCSConfiguration(endpoint: endpoint).serverURL()
            } catch {
                throw setting.error(error.description)
            }
        }
    )

    /// `--gcs-hmac-access-id`: the access ID of an HMAC key: with `--gcs-hmac-secret`, `gs://` requests go to GCS's S3-compatible XML API, signed with AWS Signature Version 4 (generations are not read so).
    public static let gcsHMACAccessID = optionalText(
        "gcsHMACAccessID", .sources, \.sources.gcsHMACAccessID, placeholder: "ID", flag: "gcs-hmac-access-id",
        help: "the access ID of an HMAC key: with `--gcs-hmac-secret`, `gs://` requests go to GCS's S3-compatible XML API, signed with AWS Signature Version 4 (generations are not read so)"
    )

    /// `--gcs-hmac-secret`: the secret of the HMAC key of `--gcs-hmac-access-id`.
    public static let gcsHMACSecret = optionalText(
        "gcsHMACSecret", .sources, \.sources.gcsHMACSecret, placeholder: "SECRET", flag: "gcs-hmac-secret",
        help: "the secret of the HMAC key of `--gcs-hmac-access-id`"
    )

    /// `--gcs-allowed-bucket`: the only buckets `gs://` sources may name.
    public static let gcsAllowedBucket = list(
        "gcsAllowedBucket", .sources, \.sources.gcsAllowedBuckets, placeholder: "NAME",
        imgproxy: [same("IMGPROXY_GCS_ALLOWED_BUCKETS")],
        default: "any",
        help: "the only buckets `gs://` sources may name"
    )

    /// `--gcs-denied-bucket`: buckets `gs://` sources may not name.
    public static let gcsDeniedBucket = list(
        "gcsDeniedBucket", .sources, \.sources.gcsDeniedBuckets, placeholder: "NAME",
        imgproxy: [same("IMGPROXY_GCS_DENIED_BUCKETS")],
        help: "buckets `gs://` sources may not name"
    )

    /// `--fallback-image-data`: an image served, processed as the URL asks, in place of a source that cannot be downloaded (unreachable, an error status, too large, timed out); a source whose bytes are not an image still gets its 422 (base64; first of the three).
    public static let fallbackImageData = optionalText(
        "fallbackImageData", .sources, \.sources.fallbackImageData, placeholder: "BASE64",
        imgproxy: [same("IMGPROXY_FALLBACK_IMAGE_DATA")],
        help: "an image served, processed as the URL asks, in place of a source that cannot be downloaded (unreachable, an error status, too large, timed out); a source whose bytes are not an image still gets its 422 (base64; first of the three)",
        check: { setting, data throws(ServerConfigError) in
            if ConfiguredImage.decodeBase64(data) == nil { throw setting.error("the fallback image data is not base64") }
        }
    )

    /// `--fallback-image-path`: the fallback image read from a file.
    public static let fallbackImagePath = optionalText(
        "fallbackImagePath", .sources, \.sources.fallbackImagePath, placeholder: "FILE",
        imgproxy: [same("IMGPROXY_FALLBACK_IMAGE_PATH")],
        help: "the fallback image read from a file"
    )

    /// `--fallback-image-url`: the fallback image downloaded at start-up.
    public static let fallbackImageURL = optionalText(
        "fallbackImageURL", .sources, \.sources.fallbackImageURL, placeholder: "URL",
        flag: "fallback-image-url",
        imgproxy: [same("IMGPROXY_FALLBACK_IMAGE_URL")],
        help: "the fallback image downloaded at start-up",
        check: { setting, text throws(ServerConfigError) in
            guard let url = URL(string: text), ["http", "https"].contains(url.scheme?.lowercased() ?? "") else {
                throw setting.error("the URL '\(text)' is not an http(s) URL")
            }
        }
    )

    /// `--fallback-image-http-code`: status of a fallback image; 0: the status of the error it stands in for.
    public static let fallbackImageHTTPCode = ServerSetting(
        "fallbackImageHTTPCode", .sources, kind: .custom, placeholder: "N",
        flag: "fallback-image-http-code",
        imgproxy: [same("IMGPROXY_FALLBACK_IMAGE_HTTP_CODE")],
        default: "`200`",
        help: "status of a fallback image; 0: the status of the error it stands in for",
        check: { setting, config throws(ServerConfigError) in
            let code = config.sources.fallbackImageHTTPCode
            if code != 0, !(100...599).contains(code) {
                throw setting.error("fallback image status \(code) is not 0 or an HTTP status 100…599")
            }
        }
    ) { setting, values, config throws(ServerConfigError) in
        config.sources.fallbackImageHTTPCode = try SettingText.integer(values.last ?? "", setting)
    }

    /// `--fallback-image-ttl`: `max-age` of a fallback image, when shorter.
    public static let fallbackImageTTL = ServerSetting(
        "fallbackImageTTL", .sources, kind: .custom, placeholder: "S",
        flag: "fallback-image-ttl",
        imgproxy: [same("IMGPROXY_FALLBACK_IMAGE_TTL")],
        default: "the TTL",
        help: "`max-age` of a fallback image, when shorter"
    ) { setting, values, config throws(ServerConfigError) in
        let seconds = try SettingText.integer(values.last ?? "", setting)
        config.sources.fallbackImageTTL = seconds > 0 ? seconds : nil
    }
}
