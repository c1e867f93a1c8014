import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import WebImage

#if canImport(Glibc)
import Glibc
#endif

/// moto's server (`moto_server`, installed by `scripts/bootstrap` into `.build-tools/moto`)
/// on 127.0.0.1, one per test process, serving S3, IAM and STS with authentication on:
/// every request must be signed with the key of its IAM user, whose policy allows `s3:*`
/// and `sts:AssumeRole`, or with temporary credentials of the role ``roleARN``, which
/// allows `s3:*`. STS `AssumeRoleWithWebIdentity` goes unsigned, as AWS takes it.
///
/// Tests make a private bucket of their own with ``makeBucket(_:objects:)``. A shell
/// beside moto stops it when the test process ends, however it ends.
package final class MotoS3Server: Sendable {
    /// The server's URL, `http://127.0.0.1:<port>`.
    package let endpoint: String
    /// The port it listens on.
    package let port: Int
    /// The IAM user's key: requests signed with it are allowed.
    package let credentials: AWSCredentials
    /// A role anyone may assume (`AssumeRole`, `AssumeRoleWithWebIdentity`) that allows `s3:*`.
    package let roleARN: String
    private let process: ChildProcess

    /// The server of this test process, started by the first caller.
    package static func shared() async throws -> MotoS3Server {
        try await Starter.shared.server()
    }

    /// Starts one server at a time, and keeps the one started.
    private actor Starter {
        static let shared = Starter()
        private var started: MotoS3Server?

        func server() throws -> MotoS3Server {
            if let started { return started }
            let server = try MotoS3Server()
            started = server
            return server
        }
    }

    /// The venv moto is installed in.
    package static var toolsDirectory: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent(".build-tools/moto")
    }

    private init() throws {
        let bin = Self.toolsDirectory.appendingPathComponent("bin")
        let motoServer = bin.appendingPathComponent("moto_server").path
        let python = bin.appendingPathComponent("python").path
        guard FileManager.default.isExecutableFile(atPath: motoServer) else {
            throw ImageError.network("moto's S3 server is not installed at \(motoServer): run scripts/bootstrap (make test runs it), which pip-installs moto[server] there; it needs python3 and access to PyPI once")
        }
        var lastFailure = ""
        for _ in 0..<5 {
            let port = try freeLoopbackPort()
            let process = ChildProcess()
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            // moto runs while the test process lives, and no longer (moto_server does not
            // stop on SIGTERM).
            process.arguments = ["-c", """
                "$0" -c "$3" -H 127.0.0.1 -p "$1" >/dev/null 2>&1 &
                moto=$!
                while kill -0 "$2" 2>/dev/null && kill -0 "$moto" 2>/dev/null; do sleep 1; done
                kill -KILL "$moto" 2>/dev/null
                """, python, String(port), String(getpid()), Self.launchScript]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            process.standardInput = FileHandle.nullDevice
            try process.run()
            let endpoint = "http://127.0.0.1:\(port)"
            do {
                let output = try Self.python(["init", endpoint])
                guard let fields = try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: String],
                      let keyID = fields["accessKeyID"], let secret = fields["secretAccessKey"], let roleARN = fields["roleARN"]
                else {
                    throw ImageError.invalidResponse("moto set-up printed \(output)")
                }
                self.endpoint = endpoint
                self.port = port
                self.credentials = AWSCredentials(accessKeyID: keyID, secretAccessKey: secret)
                self.roleARN = roleARN
                self.process = process
                return
            } catch {
                lastFailure = "\(error)"
                process.terminate()
            }
        }
        throw ImageError.network("moto's S3 server did not start on 127.0.0.1: \(lastFailure)")
    }

    deinit {
        process.terminate()
    }

    /// Makes the private bucket `bucket` with versioning on, and puts `objects` in it in
    /// order (a key given twice gets two versions), each request signed with the IAM
    /// user's key as any S3 client signs it.
    /// - Returns: the version IDs of each key, oldest first.
    @discardableResult
    package func makeBucket(_ bucket: String, objects: [(key: String, data: Data)]) async throws -> [String: [String]] {
        _ = try await send("PUT", "/\(bucket)")
        let versioning = #"<VersioningConfiguration xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Status>Enabled</Status></VersioningConfiguration>"#
        _ = try await send("PUT", "/\(bucket)", query: [("versioning", "")], body: Data(versioning.utf8))
        var versions: [String: [String]] = [:]
        for object in objects {
            let headers = try await send("PUT", "/\(bucket)/\(object.key)", body: object.data, contentType: "image/png")
            guard let version = headers["x-amz-version-id"].first else {
                throw ImageError.invalidResponse("moto stored \(object.key) without a version ID")
            }
            versions[object.key, default: []].append(version)
        }
        return versions
    }

    /// Sends one S3 request signed with the IAM user's key; the response's headers.
    /// - Throws: ``ImageError/invalidResponse(_:)`` with S3's answer when it is not a 2xx.
    private func send(
        _ method: String, _ path: String, query: [(name: String, value: String)] = [], body: Data = Data(), contentType: String? = nil
    ) async throws -> HTTPHeaders {
        let signable = SigV4Request(
            method: method, path: path, query: query, headers: [("host", "127.0.0.1:\(port)")], payloadHash: SigV4Signer.payloadHash(of: body)
        )
        let signer = SigV4Signer(credentials: credentials, region: "us-east-1", service: "s3")
        let queryText = query.map { "\($0.name)=\($0.value)" }.joined(separator: "&")
        var request = HTTPClientRequest(url: endpoint + signable.encodedPath + (queryText.isEmpty ? "" : "?" + queryText))
        request.method = HTTPMethod(rawValue: method)
        for (name, value) in signer.signedHeaders(for: signable, date: Date()) { request.headers.add(name: name, value: value) }
        if let contentType { request.headers.add(name: "Content-Type", value: contentType) }
        request.body = .bytes(ByteBuffer(bytes: body))
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(60))
        let answer = try await response.body.collect(upTo: 1 << 20)
        guard (200..<300).contains(response.status.code) else {
            throw ImageError.invalidResponse("moto answered \(method) \(path) with \(response.status.code): \(String(buffer: answer).prefix(500))")
        }
        return response.headers
    }

    /// Runs ``setUpScript`` with moto's Python and `arguments`; its standard output.
    private static func python(_ arguments: [String]) throws -> String {
        let process = ChildProcess()
        process.executableURL = toolsDirectory.appendingPathComponent("bin/python")
        process.arguments = ["-c", setUpScript] + arguments
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let errorText = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw ImageError.network("moto set-up (\(arguments.first ?? "")) failed: \(errorText.suffix(2000))")
        }
        return text
    }

    /// moto's server with one difference: STS `AssumeRoleWithWebIdentity` is not
    /// authenticated, as AWS does not (the token is the proof; moto would ask the unsigned
    /// request for a signature).
    private static let launchScript = """
        import sys
        from moto.core.authorization import ActionAuthenticatorMixin
        from moto.sts.responses import TokenResponse

        authenticated = ActionAuthenticatorMixin._authenticate_and_authorize_action

        def authenticate(self, iam_request_cls, resource="*"):
            if isinstance(self, TokenResponse) and self._get_action() == "AssumeRoleWithWebIdentity":
                return
            return authenticated(self, iam_request_cls, resource)

        ActionAuthenticatorMixin._authenticate_and_authorize_action = authenticate
        from moto.server import main
        main(sys.argv[1:])
        """

    /// `init <endpoint>`: waits for the server, makes the IAM user `webimage` allowed
    /// `s3:*` and `sts:AssumeRole`, and the role `webimage-reader` anyone may assume,
    /// allowed `s3:*`; turns authentication on, prints the user's key and the role's ARN as JSON.
    private static let setUpScript = """
        import json, sys, time, urllib.request
        import boto3

        command, endpoint = sys.argv[1], sys.argv[2]
        if command == "init":
            for attempt in range(300):
                try:
                    urllib.request.urlopen(endpoint + "/moto-api/", timeout=1).read()
                    break
                except Exception:
                    time.sleep(0.1)
            else:
                sys.exit("moto_server did not answer on " + endpoint)
            iam = boto3.client("iam", endpoint_url=endpoint, region_name="us-east-1",
                               aws_access_key_id="setup", aws_secret_access_key="setup")
            iam.create_user(UserName="webimage")
            iam.put_user_policy(UserName="webimage", PolicyName="all-of-s3", PolicyDocument=json.dumps(
                {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": ["s3:*", "sts:AssumeRole"], "Resource": "*"}]}))
            key = iam.create_access_key(UserName="webimage")["AccessKey"]
            trust = {"Version": "2012-10-17", "Statement": [
                {"Effect": "Allow", "Principal": {"AWS": "*"}, "Action": ["sts:AssumeRole", "sts:AssumeRoleWithWebIdentity"]}]}
            role = iam.create_role(RoleName="webimage-reader", AssumeRolePolicyDocument=json.dumps(trust))["Role"]
            iam.put_role_policy(RoleName="webimage-reader", PolicyName="all-of-s3", PolicyDocument=json.dumps(
                {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "s3:*", "Resource": "*"}]}))
            urllib.request.urlopen(urllib.request.Request(endpoint + "/moto-api/reset-auth", data=b"0", method="POST",
                                                          headers={"Content-Type": "text/plain"})).read()
            print(json.dumps({"accessKeyID": key["AccessKeyId"], "secretAccessKey": key["SecretAccessKey"], "roleARN": role["Arn"]}))
        """
}
