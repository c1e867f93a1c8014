import Foundation
import NIOSSL

/// The TLS settings of an ``ImageDownloader``'s connections to origins
/// (``DownloaderConfig/tls``): extra certificate authorities to trust, and a client
/// certificate for origins that require one (mutual TLS).
///
///     var config = DownloaderConfig()
///     config.tls = try DownloaderTLS(
///         caFile: "/etc/ssl/internal-ca.pem",
///         clientCertificateFile: "/etc/webimage/client.pem", clientKeyFile: "/etc/webimage/client.key"
///     )
public struct DownloaderTLS: Sendable, Hashable {
    /// A client certificate (with its chain) and its private key, presented to origins that ask for one.
    public struct ClientIdentity: Sendable, Hashable {
        /// The client certificate first, then any intermediates.
        public var certificateChain: [NIOSSLCertificate]
        /// The private key of the first certificate.
        public var privateKey: NIOSSLPrivateKey

        /// An identity from certificates and a key already loaded.
        public init(certificateChain: [NIOSSLCertificate], privateKey: NIOSSLPrivateKey) {
            self.certificateChain = certificateChain
            self.privateKey = privateKey
        }

        /// An identity read from PEM files: the certificate (and any intermediates after it)
        /// and its unencrypted private key. Both may be one file.
        ///
        /// - Throws: ``ImageError/invalidDownloadOperation(_:)`` naming the file that cannot
        ///   be read or holds no certificate or key.
        public init(certificatePEMFile: String, privateKeyPEMFile: String) throws(ImageError) {
            certificateChain = try DownloaderTLS.certificates(inPEMFile: certificatePEMFile, what: "client certificate")
            let text = try DownloaderTLS.contents(of: privateKeyPEMFile, what: "client private key")
            guard let block = DownloaderTLS.pemBlocks(in: text, where: { $0.hasSuffix("PRIVATE KEY") }).first else {
                throw .invalidDownloadOperation(
                    "the client private key file \(privateKeyPEMFile) holds no PEM private key (-----BEGIN PRIVATE KEY-----)"
                )
            }
            do {
                privateKey = try NIOSSLPrivateKey(bytes: Array(block.utf8), format: .pem)
            } catch {
                throw .invalidDownloadOperation(
                    "cannot read the client private key from \(privateKeyPEMFile): \(error) (an unencrypted PEM key is expected)"
                )
            }
        }
    }

    /// Certificate authorities trusted for origins' certificates, besides the system's
    /// (or instead of them, with ``trustsSystemRoots`` off).
    public var trustRoots: [NIOSSLCertificate]
    /// Whether the system's certificate authorities stay trusted. Default `true`: an
    /// internal CA is added to them, and public origins still verify.
    public var trustsSystemRoots: Bool
    /// Presented to origins that ask for a client certificate; `nil`: none is presented.
    public var clientIdentity: ClientIdentity?

    /// TLS settings from certificates already loaded.
    public init(trustRoots: [NIOSSLCertificate] = [], trustsSystemRoots: Bool = true, clientIdentity: ClientIdentity? = nil) {
        self.trustRoots = trustRoots
        self.trustsSystemRoots = trustsSystemRoots
        self.clientIdentity = clientIdentity
    }

    /// TLS settings read from PEM files: `caFile` (one or more CA certificates) added to the
    /// trusted authorities, and a client certificate with its key. Each file is optional, but
    /// a client certificate needs its key.
    ///
    /// - Throws: ``ImageError/invalidDownloadOperation(_:)`` naming the file that cannot be
    ///   read, or a certificate without its key.
    public init(
        caFile: String? = nil, trustsSystemRoots: Bool = true, clientCertificateFile: String? = nil, clientKeyFile: String? = nil
    ) throws(ImageError) {
        self.trustRoots = try caFile.map { file throws(ImageError) in try Self.certificates(inPEMFile: file, what: "CA bundle") } ?? []
        self.trustsSystemRoots = trustsSystemRoots
        switch (clientCertificateFile, clientKeyFile) {
        case (nil, nil):
            self.clientIdentity = nil
        case (let certificate?, let key?):
            self.clientIdentity = try ClientIdentity(certificatePEMFile: certificate, privateKeyPEMFile: key)
        case (let certificate?, nil):
            // A PEM file may hold the certificate and its key together.
            self.clientIdentity = try ClientIdentity(certificatePEMFile: certificate, privateKeyPEMFile: certificate)
        case (nil, _?):
            throw .invalidDownloadOperation("a client key was given without its client certificate")
        }
    }

    /// The certificates in a PEM file; other blocks in it (a private key) are skipped.
    static func certificates(inPEMFile path: String, what: String) throws(ImageError) -> [NIOSSLCertificate] {
        let text = try contents(of: path, what: what)
        var certificates: [NIOSSLCertificate] = []
        for block in pemBlocks(in: text, where: { $0 == "CERTIFICATE" }) {
            do {
                certificates.append(try NIOSSLCertificate(bytes: Array(block.utf8), format: .pem))
            } catch {
                throw .invalidDownloadOperation("the \(what) file \(path) holds a certificate that cannot be read: \(error)")
            }
        }
        guard !certificates.isEmpty else {
            throw .invalidDownloadOperation("the \(what) file \(path) holds no PEM certificate (-----BEGIN CERTIFICATE-----)")
        }
        return certificates
    }

    /// The text of a PEM file.
    static func contents(of path: String, what: String) throws(ImageError) -> String {
        do {
            return try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw .invalidDownloadOperation("cannot read the \(what) from \(path): \(error.localizedDescription)")
        }
    }

    /// The PEM blocks of `text` (`-----BEGIN LABEL-----` to `-----END LABEL-----`, both
    /// included) whose label `matches`.
    static func pemBlocks(in text: String, where matches: (Substring) -> Bool) -> [String] {
        var blocks: [String] = []
        var rest = text[...]
        while let begin = rest.range(of: "-----BEGIN ") {
            guard let labelEnd = rest[begin.upperBound...].range(of: "-----") else { break }
            let label = rest[begin.upperBound..<labelEnd.lowerBound]
            guard let end = rest[labelEnd.upperBound...].range(of: "-----END \(label)-----") else { break }
            if matches(label) { blocks.append(String(rest[begin.lowerBound..<end.upperBound])) }
            rest = rest[end.upperBound...]
        }
        return blocks
    }

    /// `base` with these settings applied.
    func applied(to base: TLSConfiguration) -> TLSConfiguration {
        var tls = base
        if !trustRoots.isEmpty {
            if trustsSystemRoots {
                tls.additionalTrustRoots.append(.certificates(trustRoots))
            } else {
                tls.trustRoots = .certificates(trustRoots)
            }
        } else if !trustsSystemRoots {
            tls.trustRoots = .certificates([])
        }
        if let clientIdentity {
            tls.certificateChain = clientIdentity.certificateChain.map { .certificate($0) }
            tls.privateKey = .privateKey(clientIdentity.privateKey)
        }
        return tls
    }
}
