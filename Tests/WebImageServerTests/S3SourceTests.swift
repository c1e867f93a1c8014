import Foundation
import Logging
import Testing
@testable import WebImage
@testable import WebImageServer
import WebImageTestSupport

/// `s3://` sources through the proxy, from moto's S3 server on 127.0.0.1.
@Suite("s3:// sources in the proxy")
struct S3SourceTests {
    /// A private bucket of the test's own holding `objects`; its name and version IDs.
    private func bucket(
        _ server: MotoS3Server, objects: [(key: String, data: Data)]
    ) async throws -> (name: String, versions: [String: [String]]) {
        let name = "proxy-\(UUID().uuidString.prefix(8).lowercased())"
        return (name, try await server.makeBucket(name, objects: objects))
    }

    /// S3 on, from `server`, signed with its IAM user's key (given as the AWS variables).
    private func useS3(_ server: MotoS3Server, credentials: AWSCredentials? = nil) -> (inout ServerConfig) -> Void {
        let credentials = credentials ?? server.credentials
        return { config in
            config.sources.useS3 = true
            config.sources.s3Endpoint = server.endpoint
            config.sources.s3Environment = ["AWS_ACCESS_KEY_ID": credentials.accessKeyID, "AWS_SECRET_ACCESS_KEY": credentials.secretAccessKey]
        }
    }

    @Test("a private object is served, resized; a missing one answers 404")
    func privateObject() async throws {
        let server = try await MotoS3Server.shared()
        let bucket = try await bucket(server, objects: [("images/q.png", ProxyImages.png), ("odd key%20#1.png", ProxyImages.png)])
        let proxy = try await TestProxy.start(configure: useS3(server))
        defer { Task { await proxy.stop() } }
        let reply = try await proxy.get(proxyPath("rs:fit:50:50", source: URL(string: "s3://\(bucket.name)/images/q.png")!, extension: "png"))
        #expect(reply.status == 200, "\(reply.text.prefix(300))")
        #expect(try ProxyImages.size(of: reply.body) == PixelSize(width: 50, height: 25))

        // The key is the source as written, '%' and '#' included (imgproxy reads it so).
        let odd = "s3://\(bucket.name)/odd key%20#1.png"
        let encoded = Data(odd.utf8).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        let oddReply = try await proxy.get("/insecure/\(encoded).png")
        #expect(oddReply.status == 200, "\(oddReply.text.prefix(300))")

        let missing = try await proxy.get(proxyPath("", source: URL(string: "s3://\(bucket.name)/images/none.png")!))
        #expect(missing.status == 404)
        #expect(missing.text.contains("NoSuchKey"))
    }

    @Test("wrong credentials answer 403 with S3's code")
    func wrongCredentials() async throws {
        let server = try await MotoS3Server.shared()
        let bucket = try await bucket(server, objects: [("q.png", ProxyImages.png)])
        let wrong = AWSCredentials(accessKeyID: server.credentials.accessKeyID, secretAccessKey: "wrong")
        let proxy = try await TestProxy.start(configure: useS3(server, credentials: wrong))
        defer { Task { await proxy.stop() } }
        let reply = try await proxy.get(proxyPath("", source: URL(string: "s3://\(bucket.name)/q.png")!))
        #expect(reply.status == 403)
        #expect(reply.text.contains("SignatureDoesNotMatch"))
    }

    @Test("virtual-host style: the guard resolves and approves <bucket>.localhost, the request goes there")
    func virtualHost() async throws {
        let server = try await MotoS3Server.shared()
        let bucket = try await bucket(server, objects: [("q.png", ProxyImages.png)])
        let asked = Recorder<String>()
        let resolve: @Sendable (String) async throws(ImageError) -> [IPAddress] = { host throws(ImageError) in
            asked.append(host)
            guard host.hasSuffix(".localhost") else { throw .network("no such host \(host)") }
            return [IPAddress(parsing: "127.0.0.1")!]
        }
        let proxy = try await TestProxy.start(configure: { config in
            useS3(server)(&config)
            config.sources.s3Endpoint = "localhost:\(server.port)"
            config.sources.s3EndpointUsePathStyle = false
        }, resolve: resolve)
        defer { Task { await proxy.stop() } }
        let reply = try await proxy.get(proxyPath("", source: URL(string: "s3://\(bucket.name)/q.png")!, extension: "png"))
        #expect(reply.status == 200, "\(reply.text.prefix(300))")
        #expect(asked.values == ["\(bucket.name).localhost"])
    }

    @Test("a version ID in the source URL serves that version")
    func versionInURL() async throws {
        let server = try await MotoS3Server.shared()
        let old = try TestImages.encode(try TestImages.quadrants(width: 30, height: 10), as: .png)
        let bucket = try await bucket(server, objects: [("v.png", old), ("v.png", ProxyImages.png)])
        let versions = try #require(bucket.versions["v.png"])
        let proxy = try await TestProxy.start(configure: useS3(server))
        defer { Task { await proxy.stop() } }
        let first = try await proxy.get(proxyPath("", source: URL(string: "s3://\(bucket.name)/v.png?\(versions[0])")!, extension: "png"))
        #expect(first.status == 200)
        #expect(try ProxyImages.size(of: first.body) == PixelSize(width: 30, height: 10))
        let current = try await proxy.get(proxyPath("", source: URL(string: "s3://\(bucket.name)/v.png")!, extension: "png"))
        #expect(try ProxyImages.size(of: current.body) == PixelSize(width: 200, height: 100))
    }

    @Test("the allowed sources list takes s3://<bucket>/ entries and holds s3:// sources to them")
    func allowedSources() async throws {
        let server = try await MotoS3Server.shared()
        let allowed = try await bucket(server, objects: [("q.png", ProxyImages.png)])
        let other = try await bucket(server, objects: [("q.png", ProxyImages.png)])
        #expect(SourceGuard.problem(withPrefix: "s3://\(allowed.name)/") == nil)
        #expect(SourceGuard.problem(withPrefix: "s3://\(allowed.name)")?.contains("after the bucket") == true)
        let proxy = try await TestProxy.start(configure: { config in
            useS3(server)(&config)
            config.sources.allowedSources = ["s3://\(allowed.name)/"]
        })
        defer { Task { await proxy.stop() } }
        let inside = try await proxy.get(proxyPath("", source: URL(string: "s3://\(allowed.name)/q.png")!))
        #expect(inside.status == 200)
        let outside = try await proxy.get(proxyPath("", source: URL(string: "s3://\(other.name)/q.png")!))
        #expect(outside.status == 404)
        #expect(outside.text.contains("allowed source prefix"))
    }

    @Test("IMGPROXY_S3_ALLOWED_BUCKETS and IMGPROXY_S3_DENIED_BUCKETS hold s3:// sources to their buckets")
    func bucketLists() async throws {
        let server = try await MotoS3Server.shared()
        let allowed = try await bucket(server, objects: [("q.png", ProxyImages.png)])
        let denied = try await bucket(server, objects: [("q.png", ProxyImages.png)])
        var config = ServerConfig()
        try ImgproxyEnvironment.apply([
            "IMGPROXY_S3_ALLOWED_BUCKETS": "\(allowed.name), \(denied.name)", "IMGPROXY_S3_DENIED_BUCKETS": denied.name,
        ], to: &config)
        let proxy = try await TestProxy.start(configure: { start in
            useS3(server)(&start)
            start.sources.s3AllowedBuckets = config.sources.s3AllowedBuckets
            start.sources.s3DeniedBuckets = config.sources.s3DeniedBuckets
        })
        defer { Task { await proxy.stop() } }
        #expect(try await proxy.get(proxyPath("", source: URL(string: "s3://\(allowed.name)/q.png")!)).status == 200)
        let refused = try await proxy.get(proxyPath("", source: URL(string: "s3://\(denied.name)/q.png")!))
        #expect(refused.status == 404)
        #expect(refused.text.contains("IMGPROXY_S3_DENIED_BUCKETS"))
        #expect(try await proxy.get(proxyPath("", source: URL(string: "s3://elsewhere/q.png")!)).status == 404)
    }

    @Test("the S3 endpoint the settings name is reached on loopback without allowing loopback sources, while an http://127.0.0.1 source is refused")
    func endpointTrustedBySetting() async throws {
        let server = try await MotoS3Server.shared()
        let bucket = try await bucket(server, objects: [("q.png", ProxyImages.png)])
        let proxy = try await TestProxy.start(configure: { config in
            useS3(server)(&config)
            config.sources.allowLoopback = false
        })
        defer { Task { await proxy.stop() } }
        let reply = try await proxy.get(proxyPath("", source: URL(string: "s3://\(bucket.name)/q.png")!))
        #expect(reply.status == 200, "\(reply.text.prefix(300))")
        // The same server as an http source is a loopback source like any other.
        let direct = try await proxy.get(proxyPath("", source: URL(string: "\(server.endpoint)/\(bucket.name)/q.png")!))
        #expect(direct.status == 403)
        #expect(direct.text.contains("127.0.0.1"))
        #expect(direct.text.contains("loopback"))
    }

    @Test("the start-up line names where the S3 credentials come from, never a secret; without any, that requests go unsigned")
    func startupLine() async throws {
        let server = try await MotoS3Server.shared()
        func lines(_ configure: @escaping (inout ServerConfig) -> Void) async throws -> [String] {
            let store = LogLines()
            let proxy = try await TestProxy.start(configure: configure, logger: Logger(label: "test") { _ in RecordingLogHandler(store: store) })
            await proxy.stop()
            return store.lines.withLock { $0.map(\.message) }.filter { $0.hasPrefix("s3:// sources") }
        }
        let environment = try await lines(useS3(server))
        #expect(environment == ["s3:// sources: credentials from the environment (AWS_ACCESS_KEY_ID \(server.credentials.accessKeyID))"])
        #expect(!environment.joined().contains(server.credentials.secretAccessKey))

        let home = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-home-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: home) }
        try FileManager.default.createDirectory(atPath: home + "/.aws", withIntermediateDirectories: true)
        try Data("[images]\naws_access_key_id = AKIAPROFILE\naws_secret_access_key = profile-secret\n".utf8)
            .write(to: URL(fileURLWithPath: home + "/.aws/credentials"))
        let profile = try await lines { config in
            useS3(server)(&config)
            config.sources.s3Environment = ["AWS_PROFILE": "images", "AWS_EC2_METADATA_DISABLED": "true"]
            config.sources.s3HomeDirectory = home
        }
        #expect(profile == ["s3:// sources: credentials from profile 'images' from \(home)/.aws/credentials (access key ID AKIAPROFILE)"])

        let unsigned = try await lines { config in
            useS3(server)(&config)
            config.sources.s3Environment = ["AWS_EC2_METADATA_DISABLED": "true"]
        }
        #expect(unsigned.count == 1)
        #expect(unsigned.first?.hasPrefix("s3:// sources: requests go unsigned: ") == true)
    }

    @Test("IMGPROXY_S3_ASSUME_ROLE_ARN: the role, assumed from moto's STS with the environment's keys, signs the GET; the start-up line names it")
    func assumeRole() async throws {
        let server = try await MotoS3Server.shared()
        let bucket = try await bucket(server, objects: [("q.png", ProxyImages.png)])
        var applied = ServerConfig()
        try ImgproxyEnvironment.apply(["IMGPROXY_S3_ASSUME_ROLE_ARN": server.roleARN, "IMGPROXY_S3_ASSUME_ROLE_EXTERNAL_ID": "images-id"], to: &applied)
        #expect(applied.sources.s3AssumeRoleARN == server.roleARN)
        #expect(applied.sources.s3AssumeRoleExternalID == "images-id")
        let store = LogLines()
        let proxy = try await TestProxy.start(
            configure: { config in
                useS3(server)(&config)
                config.sources.s3AssumeRoleARN = applied.sources.s3AssumeRoleARN
                config.sources.s3AssumeRoleExternalID = applied.sources.s3AssumeRoleExternalID
                config.sources.s3Environment["AWS_ENDPOINT_URL_STS"] = server.endpoint
            },
            logger: Logger(label: "test") { _ in RecordingLogHandler(store: store) }
        )
        defer { Task { await proxy.stop() } }
        let role = try #require(proxy.server.s3Configuration?.credentialsProvider as? AWSAssumeRoleCredentialsProvider)
        #expect(role.externalID == "images-id")
        #expect(role.stsEndpoint.absoluteString == server.endpoint)
        let reply = try await proxy.get(proxyPath("", source: URL(string: "s3://\(bucket.name)/q.png")!))
        #expect(reply.status == 200, "\(reply.text.prefix(300))")
        #expect(try await role.credentials()?.accessKeyID != server.credentials.accessKeyID)
        let line = store.lines.withLock { $0.map(\.message) }.first { $0.hasPrefix("s3:// sources") }
        #expect(line == "s3:// sources: credentials from assume role \(server.roleARN) (with an external ID), signed with credentials from the environment (AWS_ACCESS_KEY_ID \(server.credentials.accessKeyID))")
    }

    @Test("a broken shared credentials file stops the server at start-up, naming the file")
    func brokenCredentialsFile() async throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-home-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: home) }
        try FileManager.default.createDirectory(atPath: home + "/.aws", withIntermediateDirectories: true)
        try Data("aws_access_key_id = AKIA\n".utf8).write(to: URL(fileURLWithPath: home + "/.aws/credentials"))
        await #expect {
            _ = try await TestProxy.start(configure: { config in
                config.sources.useS3 = true
                config.sources.s3HomeDirectory = home
            })
        } throws: { error in
            guard let error = error as? ServerConfigError else { return false }
            return error.message.contains("\(home)/.aws/credentials") && error.message.contains("IMGPROXY_USE_S3")
        }
    }

    @Test("with S3 off, an s3:// source answers 404 naming the setting that turns it on")
    func s3Off() async throws {
        let proxy = try await TestProxy.start()
        defer { Task { await proxy.stop() } }
        let reply = try await proxy.get(proxyPath("", source: URL(string: "s3://bucket/q.png")!))
        #expect(reply.status == 404)
        #expect(reply.text.contains("IMGPROXY_USE_S3"))
    }

    @Test("imgproxy's S3 variables: USE_S3, S3_ENDPOINT, S3_REGION, S3_ENDPOINT_USE_PATH_STYLE; s3:// allowed sources start")
    func imgproxyVariables() async throws {
        var config = ServerConfig()
        try ImgproxyEnvironment.apply([
            "IMGPROXY_USE_S3": "true", "IMGPROXY_S3_ENDPOINT": "minio:9000", "IMGPROXY_S3_REGION": "eu-west-3",
            "IMGPROXY_S3_ENDPOINT_USE_PATH_STYLE": "false", "IMGPROXY_ALLOWED_SOURCES": "s3://photos,https://cdn.example.com/",
        ], to: &config)
        #expect(config.sources.useS3)
        #expect(config.sources.allowedSources == ["s3://photos/", "https://cdn.example.com/"])
        config.sources.s3Environment = ["AWS_REGION": "ap-south-1", "AWS_ACCESS_KEY_ID": "AKID", "AWS_SECRET_ACCESS_KEY": "secret"]
        try config.validate()
        let s3 = try #require(try config.sources.s3Configuration(profile: config.profile))
        #expect(s3.endpoint == "minio:9000")
        #expect(s3.region == "eu-west-3")
        #expect(s3.usesPathStyle == false)
        #expect(try await s3.credentialsProvider?.credentials()?.accessKeyID == "AKID")

        var defaults = ServerConfig()
        #expect(try defaults.sources.s3Configuration(profile: defaults.profile) == nil)
        defaults.sources.useS3 = true
        #expect(try defaults.sources.s3Configuration(profile: defaults.profile)?.usesPathStyle == true)
        #expect(try defaults.sources.s3Configuration(profile: defaults.profile)?.region == "us-east-1")
        defaults.sources.s3Environment = ["AWS_ENDPOINT_URL_S3": "http://10.0.0.5:9000"]
        #expect(try defaults.sources.s3Configuration(profile: defaults.profile)?.endpoint == "http://10.0.0.5:9000")
        defaults.sources.s3Endpoint = "http://127.0.0.1:9000"
        #expect(try defaults.sources.s3Configuration(profile: defaults.profile)?.endpoint == "http://127.0.0.1:9000")
        defaults.sources.s3Endpoint = "http://"
        #expect(throws: ServerConfigError.self) { try defaults.validate() }
    }

    @Test("webimage serve started with IMGPROXY_* and AWS_* variables only serves an s3:// source")
    func serveWithVariables() async throws {
        let server = try await MotoS3Server.shared()
        let bucket = try await bucket(server, objects: [("q.png", ProxyImages.png)])
        let serve = try ServeProcess(environment: [
            "IMGPROXY_USE_S3": "true", "IMGPROXY_S3_ENDPOINT": server.endpoint,
            "IMGPROXY_ALLOWED_SOURCES": "s3://\(bucket.name)/",
            "AWS_ACCESS_KEY_ID": server.credentials.accessKeyID, "AWS_SECRET_ACCESS_KEY": server.credentials.secretAccessKey,
            "AWS_REGION": "us-east-1",
            // The test machine's own shared files stay out of it.
            "AWS_SHARED_CREDENTIALS_FILE": "/nonexistent/credentials", "AWS_CONFIG_FILE": "/nonexistent/config",
        ])
        defer { serve.stop() }
        let reply = try await serve.client.get(proxyPath("rs:fit:20:20", source: URL(string: "s3://\(bucket.name)/q.png")!, extension: "png"))
        #expect(reply.status == 200, "\(reply.text.prefix(300))")
        #expect(try ProxyImages.size(of: reply.body) == PixelSize(width: 20, height: 10))
    }
}
