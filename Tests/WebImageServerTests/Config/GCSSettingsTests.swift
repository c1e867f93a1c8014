import Foundation
import Testing
import WebImage
@testable import WebImageServer
import WebImageTestSupport

/// The settings of `gs://` sources: imgproxy's variables, WebImage's HMAC key, the checks
/// that stop start-up, and what the start-up log says.
@Suite("GCS settings")
struct GCSSettingsTests {
    /// A service account's JSON key of a key generated here.
    private func keyJSON() throws -> String {
        let pem = try TestServiceAccount.generatedKeyPEM()
        let fields = ["type": "service_account", "client_email": "img@p.iam.gserviceaccount.com", "private_key": pem, "token_uri": "https://oauth2.example.com/token"]
        return String(decoding: try JSONSerialization.data(withJSONObject: fields), as: UTF8.self)
    }

    @Test("imgproxy's IMGPROXY_USE_GCS, _GCS_KEY, _GCS_ENDPOINT, _GCS_ALLOWED_BUCKETS and _GCS_DENIED_BUCKETS are applied")
    func imgproxyVariables() throws {
        let json = try keyJSON()
        var config = ServerConfig()
        let unapplied = try ImgproxyEnvironment.apply([
            "IMGPROXY_USE_GCS": "true", "IMGPROXY_GCS_KEY": json, "IMGPROXY_GCS_ENDPOINT": "http://fake-gcs:4443/storage/v1/",
            "IMGPROXY_GCS_ALLOWED_BUCKETS": "a,b", "IMGPROXY_GCS_DENIED_BUCKETS": "c",
        ], to: &config)
        #expect(unapplied.isEmpty)
        #expect(config.sources.useGCS)
        #expect(config.sources.gcsKey == json)
        #expect(config.sources.gcsAllowedBuckets == ["a", "b"])
        #expect(config.sources.gcsDeniedBuckets == ["c"])
        try config.validate()
        let gcs = try #require(try config.sources.gcsConfiguration())
        #expect(try gcs.serverURL().absoluteString == "http://fake-gcs:4443")
        guard case .serviceAccount(let key)? = gcs.credentials else {
            Issue.record("expected a service account, got \(String(describing: gcs.credentials))")
            return
        }
        #expect(key.clientEmail == "img@p.iam.gserviceaccount.com")
        let summary = try #require(config.sources.gcsAuthenticationSummary)
        #expect(summary.contains("service account img@p.iam.gserviceaccount.com"))
        #expect(!summary.contains("PRIVATE KEY"))
    }

    @Test("a malformed IMGPROXY_GCS_KEY stops start-up with a message naming the variable, not the key")
    func malformedKeyStopsStartup() throws {
        for value in ["{\"type\": \"service_account\"", #"{"type":"service_account","client_email":"x@p","private_key":"-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n"}"#] {
            var config = ServerConfig()
            try ImgproxyEnvironment.apply(["IMGPROXY_USE_GCS": "true", "IMGPROXY_GCS_KEY": value], to: &config)
            #expect {
                try config.validate()
            } throws: { error in
                let message = (error as? ServerConfigError)?.message ?? ""
                return message.contains("IMGPROXY_GCS_KEY") && message.contains("service") && !message.contains("AAAA")
            }
        }
    }

    @Test("an HMAC key's access ID and secret sign gs:// requests; one without the other, or with a service account, stops start-up")
    func hmacKey() throws {
        var config = ServerConfig()
        config.sources.useGCS = true
        try ServerSetting.apply(environment: ["WEBIMAGE_GCS_HMAC_ACCESS_ID": "GOOG1ID", "WEBIMAGE_GCS_HMAC_SECRET": "s3cr3t"], to: &config)
        guard case .hmac(let key)? = try config.sources.gcsConfiguration()?.credentials else {
            Issue.record("expected an HMAC key")
            return
        }
        #expect(key.accessKeyID == "GOOG1ID" && key.secretAccessKey == "s3cr3t")
        let summary = try #require(config.sources.gcsAuthenticationSummary)
        #expect(summary.contains("HMAC key GOOG1ID"))
        #expect(!summary.contains("s3cr3t"))

        var withoutSecret = config
        withoutSecret.sources.gcsHMACSecret = nil
        #expect(throws: ServerConfigError.self) { try withoutSecret.validate() }
        var both = config
        both.sources.gcsKey = try keyJSON()
        #expect { try both.validate() } throws: { ($0 as? ServerConfigError)?.message.contains("not both") == true }
    }

    @Test("without credentials the start-up log says gs:// requests go unauthenticated; GCS off says nothing; a bad endpoint stops start-up")
    func unauthenticatedAndOff() throws {
        var config = ServerConfig()
        #expect(config.sources.gcsAuthenticationSummary == nil)
        #expect(try config.sources.gcsConfiguration() == nil)
        config.sources.useGCS = true
        #expect(config.sources.gcsAuthenticationSummary?.contains("https://storage.googleapis.com, unauthenticated") == true)
        config.sources.gcsEndpoint = "http://"
        #expect { try config.validate() } throws: { ($0 as? ServerConfigError)?.message.contains("IMGPROXY_GCS_ENDPOINT") == true }
    }

    @Test("IMGPROXY_USE_ABS and IMGPROXY_USE_SWIFT still stop start-up; IMGPROXY_USE_GCS no longer does")
    func otherStoragesRefused() throws {
        #expect(ImgproxyEnvironment.unapplied["IMGPROXY_USE_GCS"] == nil)
        #expect(ImgproxyEnvironment.unapplied["IMGPROXY_GCS_KEY"] == nil)
        #expect(ImgproxyEnvironment.unapplied["IMGPROXY_USE_ABS"]?.stopsStartup == true)
        #expect(ImgproxyEnvironment.unapplied["IMGPROXY_USE_SWIFT"]?.stopsStartup == true)
    }
}
