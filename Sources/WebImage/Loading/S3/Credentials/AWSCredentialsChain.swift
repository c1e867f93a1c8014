import Foundation
import Synchronization

/// The credentials the AWS SDKs would find, in the order of the AWS SDK for Go v2 (which
/// imgproxy uses): the first source that is configured gives them.
///
/// 1. A profile `AWS_PROFILE` names (see 4), before anything else; it must exist.
/// 2. The environment: `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN`.
/// 3. A web identity token: `AWS_WEB_IDENTITY_TOKEN_FILE`, `AWS_ROLE_ARN`,
///    `AWS_ROLE_SESSION_NAME` (``AWSWebIdentityCredentialsProvider``).
/// 4. The profile `default` of the shared credentials file (`AWS_SHARED_CREDENTIALS_FILE`,
///    default `~/.aws/credentials`) or config file (`AWS_CONFIG_FILE`, default
///    `~/.aws/config`, `[profile name]` sections), when it has `aws_access_key_id` and
///    `aws_secret_access_key`.
/// 5. The container credentials endpoint: `AWS_CONTAINER_CREDENTIALS_RELATIVE_URI` or
///    `AWS_CONTAINER_CREDENTIALS_FULL_URI` (``AWSContainerCredentialsProvider``).
/// 6. The EC2 instance metadata service (``AWSInstanceMetadataCredentialsProvider``),
///    unless `AWS_EC2_METADATA_DISABLED` is `true`: probed once, each request waiting at
///    most ``instanceMetadataTimeout``. When it does not answer with credentials, there are
///    none: ``credentials()`` answers `nil` and requests go unsigned.
///
/// The sources are looked at once, on the first ``resolve()`` or ``credentials()``; the
/// source found then gives every later request its credentials, temporary ones renewed
/// before they expire. STS calls go to `AWS_ENDPOINT_URL_STS`, else `AWS_ENDPOINT_URL`,
/// else the regional endpoint of the region (`AWS_REGION`, `AWS_DEFAULT_REGION` or the
/// profile's `region`).
public final class AWSCredentialsChain: AWSCredentialsProvider {
    /// The variables read.
    public let environment: [String: String]
    /// The directory holding `.aws/`.
    public let homeDirectory: String?
    /// How long each request to the instance metadata service may take.
    public let instanceMetadataTimeout: Duration

    /// What the sources gave: a provider and its source, or why there is none.
    private enum Resolution: Sendable {
        case found(any AWSCredentialsProvider, AWSCredentialsSource)
        case unsigned(reason: String)
    }

    private struct State {
        var resolution: Resolution?
        var resolving: Task<Result<Resolution, ImageError>, Never>?
    }

    private let state = Mutex(State())

    /// Creates the chain of `environment`'s variables.
    /// - Parameters:
    ///   - environment: the variables; default the process's.
    ///   - homeDirectory: the directory holding `.aws/`; `nil`: `HOME` of `environment`.
    ///   - instanceMetadataTimeout: how long each request to the instance metadata service
    ///     may take; default 1 s, as the AWS SDKs wait.
    public init(
        environment: [String: String] = ProcessInfo.processInfo.environment, homeDirectory: String? = nil,
        instanceMetadataTimeout: Duration = .seconds(1)
    ) {
        self.environment = environment
        self.homeDirectory = homeDirectory ?? AWSEnvironment(environment)["HOME"]
        self.instanceMetadataTimeout = instanceMetadataTimeout
    }

    /// The source that gives the credentials, or `nil` when none does and requests go unsigned.
    /// - Throws: ``ImageError/credentialsUnavailable(_:)`` when a source is misconfigured: a
    ///   shared file that cannot be parsed, a profile `AWS_PROFILE` names that is in neither
    ///   file, a web identity token file that does not exist, a container URI that cannot be used.
    public func resolve() async throws(ImageError) -> AWSCredentialsSource? {
        switch try await resolution() {
        case .found(_, let source): source
        case .unsigned: nil
        }
    }

    /// Why requests go unsigned, after a ``resolve()`` that found no source; `nil` otherwise.
    public var unsignedReason: String? {
        state.withLock { state in
            if case .unsigned(let reason) = state.resolution { return reason }
            return nil
        }
    }

    /// The credentials of the source found, or `nil` when there is none.
    public func credentials() async throws(ImageError) -> AWSCredentials? {
        switch try await resolution() {
        case .found(let provider, _): try await provider.credentials()
        case .unsigned: nil
        }
    }

    /// The resolution, made once for every caller.
    private func resolution() async throws(ImageError) -> Resolution {
        enum Next {
            case ready(Resolution)
            case wait(Task<Result<Resolution, ImageError>, Never>)
        }
        let next: Next = state.withLock { state in
            if let resolution = state.resolution { return .ready(resolution) }
            if let resolving = state.resolving { return .wait(resolving) }
            // The task ends under the lock, which is held here until the task is stored in the state.
            let resolving = Task<Result<Resolution, ImageError>, Never> {
                let result: Result<Resolution, ImageError>
                do throws(ImageError) {
                    result = .success(try await self.findSource())
                } catch {
                    result = .failure(error)
                }
                self.state.withLock { state in
                    if case .success(let resolution) = result { state.resolution = resolution }
                    state.resolving = nil
                }
                return result
            }
            state.resolving = resolving
            return .wait(resolving)
        }
        switch next {
        case .ready(let resolution): return resolution
        case .wait(let resolving): return try await resolving.value.get()
        }
    }

    /// Looks at the sources in order.
    private func findSource() async throws(ImageError) -> Resolution {
        let variables = AWSEnvironment(environment)
        let profiles = try AWSSharedProfiles(environment: environment, homeDirectory: homeDirectory)
        if let missing = profiles.missingNamedProfile { throw missing }
        if profiles.isNamed, let found = try Self.profileCredentials(profiles) { return found }
        if let credentials = AWSCredentials.fromEnvironment(environment) {
            let source = AWSCredentialsSource.environment(accessKeyID: credentials.accessKeyID)
            return .found(AWSStaticCredentialsProvider(credentials, source: source), source)
        }
        let region = variables["AWS_REGION"] ?? variables["AWS_DEFAULT_REGION"] ?? profiles.region
        let endpoints = AWSServiceEndpoints(environment: environment)
        if let tokenFile = variables["AWS_WEB_IDENTITY_TOKEN_FILE"] {
            guard let roleARN = variables["AWS_ROLE_ARN"] else {
                throw .credentialsUnavailable("AWS_WEB_IDENTITY_TOKEN_FILE is set without AWS_ROLE_ARN, the role to assume with the token; set both or neither")
            }
            _ = try AWSWebIdentityCredentialsProvider.token(in: tokenFile)
            let sts = AWSSecurityTokenService(endpoint: try endpoints.sts(region: region), region: region)
            let provider = AWSWebIdentityCredentialsProvider(roleARN: roleARN, tokenFile: tokenFile, sessionName: variables["AWS_ROLE_SESSION_NAME"], sts: sts)
            return .found(provider, provider.source)
        }
        if !profiles.isNamed, let found = try Self.profileCredentials(profiles) { return found }
        if let container = try AWSContainerCredentialsProvider.fromEnvironment(variables) {
            return .found(container, container.source)
        }
        let looked = "no AWS_ACCESS_KEY_ID, no keys in profile '\(profiles.profileName)' of \(profiles.paths.isEmpty ? "the shared files (no home directory)" : profiles.paths.joined(separator: " or ")), no AWS_WEB_IDENTITY_TOKEN_FILE, no AWS_CONTAINER_CREDENTIALS_*_URI"
        if variables.isTrue("AWS_EC2_METADATA_DISABLED") {
            return .unsigned(reason: "\(looked), and AWS_EC2_METADATA_DISABLED turns the instance metadata service off")
        }
        var endpoint = AWSInstanceMetadataCredentialsProvider.defaultEndpoint
        if let given = variables["AWS_EC2_METADATA_SERVICE_ENDPOINT"] {
            guard let url = URL(string: given), url.host != nil else {
                throw .credentialsUnavailable("AWS_EC2_METADATA_SERVICE_ENDPOINT '\(given.prefix(200))' is not a URL with a host, e.g. http://169.254.169.254")
            }
            endpoint = url
        }
        let metadata = AWSInstanceMetadataCredentialsProvider(endpoint: endpoint, timeout: instanceMetadataTimeout)
        do {
            _ = try await metadata.credentials()
            return .found(metadata, metadata.source)
        } catch {
            return .unsigned(reason: "\(looked), and \(error.credentialsReason)")
        }
    }

    /// The profile's keys, or `nil` when it has none and the chain goes on.
    /// - Throws: ``ImageError/credentialsUnavailable(_:)`` for a profile with half a key, or
    ///   one that gets its credentials in a way this module does not read.
    private static func profileCredentials(_ profiles: AWSSharedProfiles) throws(ImageError) -> Resolution? {
        let name = profiles.profileName
        let keyID = profiles.property("aws_access_key_id")
        let secret = profiles.property("aws_secret_access_key")
        if let keyID, let secret {
            let credentials = AWSCredentials(accessKeyID: keyID.value, secretAccessKey: secret.value, sessionToken: profiles.property("aws_session_token")?.value)
            let source = AWSCredentialsSource.profile(name: name, file: keyID.file, accessKeyID: keyID.value)
            return .found(AWSStaticCredentialsProvider(credentials, source: source), source)
        }
        if let half = keyID ?? secret {
            throw .credentialsUnavailable("the profile '\(name)' of \(half.file) has \(keyID == nil ? "aws_secret_access_key without aws_access_key_id" : "aws_access_key_id without aws_secret_access_key"); give both")
        }
        let unread = ["role_arn", "credential_process", "sso_session", "sso_start_url"].filter { profiles.property($0) != nil }
        if let first = unread.first, let file = profiles.property(first)?.file {
            throw .credentialsUnavailable(
                "the profile '\(name)' of \(file) gets its credentials with \(unread.joined(separator: ", ")), which WebImage does not read; "
                    + "give the profile aws_access_key_id and aws_secret_access_key, or assume the role with AWSAssumeRoleCredentialsProvider (the server's S3 assume-role setting)"
            )
        }
        return nil
    }
}
