import Foundation
import Testing
@testable import WebImage

/// The default chain's order and its errors, from environment dictionaries and a home
/// directory of the test's own; the instance metadata service is off in each (no network).
@Suite("AWS default credentials chain")
struct AWSCredentialsChainTests {
    /// The variables of a test: the metadata service off, and `variables`.
    private func environment(_ variables: [String: String] = [:]) -> [String: String] {
        variables.merging(["AWS_EC2_METADATA_DISABLED": "true"]) { given, _ in given }
    }

    private let profileKeys = """
        [default]
        aws_access_key_id = AKIADEFAULT
        aws_secret_access_key = default-secret

        # a comment
        [images]
        aws_access_key_id=AKIAIMAGES
        aws_secret_access_key=images-secret
        aws_session_token = images-token
        """

    @Test("the environment's keys come before a web identity token and the default profile")
    func environmentFirst() async throws {
        let home = try AWSTestDirectory()
        defer { home.remove() }
        try home.write(".aws/credentials", profileKeys)
        let token = try home.write("token", "jwt")
        let chain = AWSCredentialsChain(
            environment: environment([
                "AWS_ACCESS_KEY_ID": "AKIAENV", "AWS_SECRET_ACCESS_KEY": "env-secret", "AWS_SESSION_TOKEN": "env-token",
                "AWS_WEB_IDENTITY_TOKEN_FILE": token, "AWS_ROLE_ARN": "arn:aws:iam::1:role/r",
            ]),
            homeDirectory: home.path
        )
        #expect(try await chain.resolve() == .environment(accessKeyID: "AKIAENV"))
        #expect(try await chain.credentials() == AWSCredentials(accessKeyID: "AKIAENV", secretAccessKey: "env-secret", sessionToken: "env-token"))
    }

    @Test("a web identity token comes before the default profile; a profile AWS_PROFILE names comes before everything, the environment's keys too")
    func profileOrder() async throws {
        let home = try AWSTestDirectory()
        defer { home.remove() }
        let file = try home.write(".aws/credentials", profileKeys)
        let token = try home.write("token", "jwt")
        let webIdentity = ["AWS_WEB_IDENTITY_TOKEN_FILE": token, "AWS_ROLE_ARN": "arn:aws:iam::1:role/r"]

        let withToken = AWSCredentialsChain(environment: environment(webIdentity), homeDirectory: home.path)
        #expect(try await withToken.resolve() == .webIdentity(roleARN: "arn:aws:iam::1:role/r", tokenFile: token))
        let byDefault = AWSCredentialsChain(environment: environment(), homeDirectory: home.path)
        #expect(try await byDefault.resolve() == .profile(name: "default", file: file, accessKeyID: "AKIADEFAULT"))

        let named = AWSCredentialsChain(
            environment: environment(webIdentity.merging(["AWS_PROFILE": "images", "AWS_ACCESS_KEY_ID": "AKIAENV", "AWS_SECRET_ACCESS_KEY": "e"]) { $1 }),
            homeDirectory: home.path
        )
        #expect(try await named.resolve() == .profile(name: "images", file: file, accessKeyID: "AKIAIMAGES"))
        #expect(try await named.credentials() == AWSCredentials(accessKeyID: "AKIAIMAGES", secretAccessKey: "images-secret", sessionToken: "images-token"))
    }

    @Test("AWS_SHARED_CREDENTIALS_FILE and AWS_CONFIG_FILE name the files; the config file's [profile name] has keys too")
    func namedFiles() async throws {
        let home = try AWSTestDirectory()
        defer { home.remove() }
        let config = try home.write("elsewhere/config", """
            [profile reader]
            region = eu-west-3
            aws_access_key_id = AKIACONFIG
            aws_secret_access_key = config-secret
            [sso-session corp]
            sso_region = us-east-1
            """)
        let variables = environment(["AWS_CONFIG_FILE": config, "AWS_SHARED_CREDENTIALS_FILE": home.path + "/none", "AWS_PROFILE": "reader"])
        let chain = AWSCredentialsChain(environment: variables, homeDirectory: "/nonexistent-home")
        #expect(try await chain.resolve() == .profile(name: "reader", file: config, accessKeyID: "AKIACONFIG"))
        #expect(try S3Configuration.fromEnvironment(variables, homeDirectory: "/nonexistent-home").region == "eu-west-3")
        #expect(try S3Configuration.fromEnvironment(variables.merging(["AWS_REGION": "ap-south-1"]) { $1 }).region == "ap-south-1")
    }

    @Test("a profile without keys, even one AWS_PROFILE names, is passed over: the chain goes on to the container endpoint")
    func profileWithoutKeys() async throws {
        let home = try AWSTestDirectory()
        defer { home.remove() }
        try home.write(".aws/config", "[default]\nregion = eu-central-1\n[profile regional]\nregion = eu-west-1\n")
        let container = ["AWS_CONTAINER_CREDENTIALS_FULL_URI": "http://127.0.0.1:1/creds"]
        for variables in [container, container.merging(["AWS_PROFILE": "regional"]) { $1 }] {
            let chain = AWSCredentialsChain(environment: environment(variables), homeDirectory: home.path)
            #expect(try await chain.resolve() == .container(endpoint: "http://127.0.0.1:1"))
        }
    }

    @Test("a web identity token comes before the container endpoint, which comes before the metadata service")
    func webIdentityBeforeContainer() async throws {
        let home = try AWSTestDirectory()
        defer { home.remove() }
        let token = try home.write("token", "jwt")
        let container = ["AWS_CONTAINER_CREDENTIALS_FULL_URI": "http://127.0.0.1:1/creds"]
        let both = AWSCredentialsChain(
            environment: environment(container.merging(["AWS_WEB_IDENTITY_TOKEN_FILE": token, "AWS_ROLE_ARN": "arn:aws:iam::1:role/r"]) { $1 }),
            homeDirectory: home.path
        )
        #expect(try await both.resolve() == .webIdentity(roleARN: "arn:aws:iam::1:role/r", tokenFile: token))
        let containerOnly = AWSCredentialsChain(environment: environment(container), homeDirectory: home.path)
        #expect(try await containerOnly.resolve() == .container(endpoint: "http://127.0.0.1:1"))
        let relative = AWSCredentialsChain(environment: environment(["AWS_CONTAINER_CREDENTIALS_RELATIVE_URI": "/v2/credentials/abc"]), homeDirectory: home.path)
        #expect(try await relative.resolve() == .container(endpoint: "http://169.254.170.2"))
    }

    @Test("no source at all, the metadata service off: nil, requests go unsigned, and the reason says what was looked at")
    func noSource() async throws {
        let chain = AWSCredentialsChain(environment: environment(), homeDirectory: "/nonexistent-home")
        #expect(try await chain.resolve() == nil)
        #expect(try await chain.credentials() == nil)
        let reason = try #require(chain.unsignedReason)
        #expect(reason.contains("AWS_EC2_METADATA_DISABLED"))
        #expect(reason.contains("/nonexistent-home/.aws/credentials"))
    }

    @Test("a broken credentials file is an error naming the file and the line")
    func brokenFile() async throws {
        let home = try AWSTestDirectory()
        defer { home.remove() }
        let file = try home.write(".aws/credentials", "[default]\naws_access_key_id = AKIA\nthis line is not a setting\n")
        let chain = AWSCredentialsChain(environment: environment(), homeDirectory: home.path)
        await #expect {
            try await chain.resolve()
        } throws: { error in
            guard case .credentialsUnavailable(let message) = error as? ImageError else { return false }
            return message.contains("line 3") && message.contains(file)
        }
        let unclosed = try home.write(".aws/config", "[profile x\n")
        await #expect {
            try await AWSCredentialsChain(environment: environment(["AWS_SHARED_CREDENTIALS_FILE": "/none"]), homeDirectory: home.path).resolve()
        } throws: { error in
            guard case .credentialsUnavailable(let message) = error as? ImageError else { return false }
            return message.contains("line 1") && message.contains(unclosed) && message.contains("']'")
        }
        #expect(throws: ImageError.self) { try S3Configuration.fromEnvironment(environment(), homeDirectory: home.path) }
    }

    @Test("a profile AWS_PROFILE names that is in neither file is an error naming it and the files")
    func missingProfile() async throws {
        let home = try AWSTestDirectory()
        defer { home.remove() }
        try home.write(".aws/credentials", profileKeys)
        let chain = AWSCredentialsChain(environment: environment(["AWS_PROFILE": "nobody"]), homeDirectory: home.path)
        await #expect {
            try await chain.credentials()
        } throws: { error in
            guard case .credentialsUnavailable(let message) = error as? ImageError else { return false }
            return message.contains("'nobody'") && message.contains(".aws/credentials") && message.contains(".aws/config") && message.contains("AWS_PROFILE")
        }
        #expect(throws: ImageError.self) { try S3Configuration.fromEnvironment(environment(["AWS_PROFILE": "nobody"]), homeDirectory: home.path) }
    }

    @Test("a profile with half a key, or one that assumes a role, is an error saying what to give")
    func unusableProfiles() async throws {
        let home = try AWSTestDirectory()
        defer { home.remove() }
        try home.write(".aws/credentials", "[half]\naws_access_key_id = AKIA\n")
        try home.write(".aws/config", "[profile role]\nrole_arn = arn:aws:iam::1:role/r\nsource_profile = half\n")
        await #expect {
            try await AWSCredentialsChain(environment: environment(["AWS_PROFILE": "half"]), homeDirectory: home.path).resolve()
        } throws: { error in
            guard case .credentialsUnavailable(let message) = error as? ImageError else { return false }
            return message.contains("without aws_secret_access_key")
        }
        await #expect {
            try await AWSCredentialsChain(environment: environment(["AWS_PROFILE": "role"]), homeDirectory: home.path).resolve()
        } throws: { error in
            guard case .credentialsUnavailable(let message) = error as? ImageError else { return false }
            return message.contains("role_arn") && message.contains("AWSAssumeRoleCredentialsProvider")
        }
    }

    @Test("a web identity token file that does not exist, or one without AWS_ROLE_ARN, is an error naming the variable")
    func webIdentityErrors() async throws {
        let missing = AWSCredentialsChain(
            environment: environment(["AWS_WEB_IDENTITY_TOKEN_FILE": "/nonexistent/token", "AWS_ROLE_ARN": "arn:aws:iam::1:role/r"]),
            homeDirectory: "/nonexistent-home"
        )
        await #expect {
            try await missing.resolve()
        } throws: { error in
            guard case .credentialsUnavailable(let message) = error as? ImageError else { return false }
            return message.contains("/nonexistent/token") && message.contains("does not exist") && message.contains("AWS_WEB_IDENTITY_TOKEN_FILE")
        }
        let home = try AWSTestDirectory()
        defer { home.remove() }
        let token = try home.write("token", "jwt")
        await #expect {
            try await AWSCredentialsChain(environment: environment(["AWS_WEB_IDENTITY_TOKEN_FILE": token]), homeDirectory: home.path).resolve()
        } throws: { error in
            guard case .credentialsUnavailable(let message) = error as? ImageError else { return false }
            return message.contains("without AWS_ROLE_ARN")
        }
    }

    @Test("a plain-http container URI to a host that is not loopback nor the container endpoint's is refused")
    func containerURIOutsideLoopback() async throws {
        let chain = AWSCredentialsChain(
            environment: environment(["AWS_CONTAINER_CREDENTIALS_FULL_URI": "http://credentials.example.com/creds"]), homeDirectory: "/nonexistent-home"
        )
        await #expect {
            try await chain.resolve()
        } throws: { error in
            guard case .credentialsUnavailable(let message) = error as? ImageError else { return false }
            return message.contains("AWS_CONTAINER_CREDENTIALS_FULL_URI") && message.contains("https")
        }
    }

    @Test("AWS_ENDPOINT_URL_S3 and AWS_ENDPOINT_URL give the S3 endpoint; AWS_ENDPOINT_URL_STS the STS one")
    func endpointVariables() throws {
        #expect(try S3Configuration.fromEnvironment(environment(["AWS_ENDPOINT_URL": "http://all:1", "AWS_ENDPOINT_URL_S3": "http://s3:2"])).endpoint == "http://s3:2")
        #expect(try S3Configuration.fromEnvironment(environment(["AWS_ENDPOINT_URL": "http://all:1"])).endpoint == "http://all:1")
        #expect(try S3Configuration.fromEnvironment(environment()).endpoint == nil)
        let endpoints = AWSServiceEndpoints(environment: ["AWS_ENDPOINT_URL": "http://all:1", "AWS_ENDPOINT_URL_STS": "http://sts:3"])
        #expect(try endpoints.sts(region: "eu-west-1").absoluteString == "http://sts:3")
        #expect(try AWSServiceEndpoints(environment: [:]).sts(region: "eu-west-1").absoluteString == "https://sts.eu-west-1.amazonaws.com")
        #expect(try AWSServiceEndpoints(environment: [:]).sts(region: nil).absoluteString == "https://sts.amazonaws.com")
    }
}
