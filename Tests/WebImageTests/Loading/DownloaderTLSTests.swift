import Foundation
import NIOSSL
import Testing
@testable import WebImage
import WebImageTestSupport

/// `DownloaderConfig.tls`: a custom CA for origins' certificates and a client certificate for
/// origins that require one, against the in-process origin speaking TLS. The CA and its
/// certificates are made by each test (swift-certificates), valid for an hour.
@Suite("Downloader TLS settings")
struct DownloaderTLSTests {
    static let png: Data = try! TestImages.encode(try! TestImages.quadrants(width: 8, height: 8), as: .png)

    /// Writes `text` to a new file in `directory`, returning its path.
    private func write(_ text: String, named name: String, in directory: URL) throws -> String {
        let url = directory.appendingPathComponent(name)
        try text.write(to: url, atomically: true, encoding: .utf8)
        return url.path
    }

    private func temporaryDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    /// Loads `url` with `config`, returning the result.
    private func load(_ url: URL, config: DownloaderConfig, options: DownloadOptions = DownloadOptions()) async -> Result<DownloadResponse, ImageError> {
        let downloader = ImageDownloader(config: config)
        let result: Result<DownloadResponse, ImageError>
        do {
            result = .success(try await downloader.load(url, options: options))
        } catch {
            result = .failure(error)
        }
        await downloader.shutdown()
        return result
    }

    @Test("an origin whose certificate a custom CA signed fails without that CA, naming the fix, and loads with its PEM file")
    func customCertificateAuthority() async throws {
        let authority = try TestCertificateAuthority()
        let server = try authority.issue(commonName: "localhost", dnsNames: ["localhost"], usage: .server)
        let origin = try await TestOrigin.start(tls: authority.serverConfiguration(presenting: server))
        origin.register("/a.png", .image(Self.png))
        let url = URL(string: "https://localhost:\(origin.port)/a.png")!
        var config = DownloaderConfig()
        config.hopAddress = { _ in "127.0.0.1" }

        switch await load(url, config: config) {
        case .success: Issue.record("a certificate from an unknown CA must be refused")
        case .failure(let error):
            guard case .network(let message) = error else { Issue.record("got \(error)"); break }
            #expect(message.contains("not signed by a trusted authority") && message.contains("--ca-file"), "\(message)")
        }

        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        config.tls = try DownloaderTLS(caFile: write(authority.certificatePEM, named: "ca.pem", in: directory))
        let response = try await load(url, config: config).get()
        #expect(response.data == Self.png)
        #expect(origin.requestCount("/a.png") == 1, "the refused handshake never reached HTTP")
        try await origin.shutdown()
    }

    @Test("an origin that requires a client certificate refuses a client without one, naming the fix, and accepts one its CA signed")
    func clientCertificate() async throws {
        let authority = try TestCertificateAuthority()
        let server = try authority.issue(commonName: "localhost", dnsNames: ["localhost"], usage: .server)
        let client = try authority.issue(commonName: "WebImage test client", usage: .client)
        let origin = try await TestOrigin.start(tls: authority.serverConfiguration(presenting: server, requiringClientCertificates: true))
        origin.register("/private.png", .image(Self.png))
        let url = URL(string: "https://localhost:\(origin.port)/private.png")!
        var config = DownloaderConfig()
        config.hopAddress = { _ in "127.0.0.1" }
        config.tls = DownloaderTLS(trustRoots: [authority.certificate])

        switch await load(url, config: config) {
        case .success: Issue.record("the origin must refuse a client without a certificate")
        case .failure(let error):
            guard case .network(let message) = error else { Issue.record("got \(error)"); break }
            #expect(message.contains("client certificate"), "\(message)")
        }
        #expect(origin.requestCount("/private.png") == 0)

        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        config.tls = try DownloaderTLS(
            caFile: write(authority.certificatePEM, named: "ca.pem", in: directory),
            clientCertificateFile: write(client.certificatePEM, named: "client.pem", in: directory),
            clientKeyFile: write(client.privateKeyPEM, named: "client.key", in: directory)
        )
        let response = try await load(url, config: config).get()
        #expect(response.data == Self.png)

        // One file holding the certificate and its key, as curl's --cert accepts.
        config.tls = try DownloaderTLS(
            caFile: write(authority.certificatePEM, named: "ca.pem", in: directory),
            clientCertificateFile: write(client.certificatePEM + client.privateKeyPEM, named: "both.pem", in: directory)
        )
        #expect(try await load(url, config: config).get().data == Self.png)
        try await origin.shutdown()
    }

    @Test("D17 allowInvalidSSLCertificates skips the origin's certificate check and still presents the client certificate")
    func invalidCertificatesKeepTheClientCertificate() async throws {
        let authority = try TestCertificateAuthority()
        let untrusted = try TestCertificateAuthority(name: "an authority the client does not know")
        let server = try untrusted.issue(commonName: "localhost", dnsNames: ["localhost"], usage: .server)
        let client = try authority.issue(commonName: "WebImage test client", usage: .client)
        var serverTLS = untrusted.serverConfiguration(presenting: server)
        serverTLS.certificateVerification = .noHostnameVerification
        serverTLS.trustRoots = .certificates([authority.certificate])
        let origin = try await TestOrigin.start(tls: serverTLS)
        origin.register("/a.png", .image(Self.png))
        var config = DownloaderConfig()
        config.tls = DownloaderTLS(clientIdentity: .init(certificateChain: [client.certificate], privateKey: client.privateKey))
        var insecure = DownloadOptions()
        insecure.allowInvalidSSLCertificates = true
        let response = try await load(origin.url("/a.png"), config: config, options: insecure).get()
        #expect(response.data == Self.png)
        try await origin.shutdown()
    }

    @Test("a CA or client certificate file that is missing or holds no certificate fails naming the file")
    func unreadableFiles() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let empty = try write("not a certificate\n", named: "empty.pem", in: directory)
        let missing = directory.appendingPathComponent("missing.pem").path
        func expectRefusalNamingTheFile(_ make: () throws -> DownloaderTLS) {
            do {
                _ = try make()
                Issue.record("an unusable file must be refused")
            } catch let error as ImageError {
                guard case .invalidDownloadOperation(let message) = error else { Issue.record("got \(error)"); return }
                #expect(message.contains(directory.path), "\(message)")
            } catch {
                Issue.record("got \(error)")
            }
        }
        expectRefusalNamingTheFile { try DownloaderTLS(caFile: missing) }
        expectRefusalNamingTheFile { try DownloaderTLS(caFile: empty) }
        expectRefusalNamingTheFile { try DownloaderTLS(clientCertificateFile: empty, clientKeyFile: empty) }
        #expect(throws: ImageError.self) { try DownloaderTLS(clientKeyFile: empty) }
    }
}
