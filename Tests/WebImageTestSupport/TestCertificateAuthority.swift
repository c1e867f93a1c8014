import Crypto
import Foundation
import NIOSSL
import X509

/// A throw-away certificate authority for tests, with the server and client certificates it
/// issues (made in the test, valid for an hour; no key or certificate is committed).
///
///     let ca = try TestCertificateAuthority()
///     let server = try ca.issue(commonName: "localhost", dnsNames: ["localhost"], usage: .server)
///     let client = try ca.issue(commonName: "image client", usage: .client)
package struct TestCertificateAuthority: Sendable {
    /// What an issued certificate is for (its extended key usage).
    package enum Usage: Sendable {
        case server
        case client
    }

    /// A certificate the authority issued, with its key, in NIOSSL's and PEM form.
    package struct Issued: Sendable {
        package let certificate: NIOSSLCertificate
        package let privateKey: NIOSSLPrivateKey
        package let certificatePEM: String
        package let privateKeyPEM: String
    }

    /// The authority's own certificate.
    package let certificate: NIOSSLCertificate
    /// The authority's certificate as PEM, the content of a CA bundle.
    package let certificatePEM: String
    private let x509: Certificate
    private let key: P256.Signing.PrivateKey

    /// A new authority named `name`.
    package init(name: String = "WebImage test CA") throws {
        let key = P256.Signing.PrivateKey()
        let subject = try DistinguishedName { CommonName(name) }
        let x509 = try Certificate(
            version: .v3,
            serialNumber: Certificate.SerialNumber(),
            publicKey: Certificate.PublicKey(key.publicKey),
            notValidBefore: Date().addingTimeInterval(-60),
            notValidAfter: Date().addingTimeInterval(3_600),
            issuer: subject,
            subject: subject,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil))
                Critical(KeyUsage(keyCertSign: true, cRLSign: true))
            },
            issuerPrivateKey: Certificate.PrivateKey(key)
        )
        self.key = key
        self.x509 = x509
        self.certificatePEM = try x509.serializeAsPEM().pemString
        self.certificate = try NIOSSLCertificate(bytes: Array(certificatePEM.utf8), format: .pem)
    }

    /// A certificate for `commonName` signed by this authority, naming `dnsNames` as subject
    /// alternative names.
    package func issue(commonName: String, dnsNames: [String] = [], usage: Usage) throws -> Issued {
        let leafKey = P256.Signing.PrivateKey()
        let names: [GeneralName] = dnsNames.map { .dnsName($0) }
        let leaf = try Certificate(
            version: .v3,
            serialNumber: Certificate.SerialNumber(),
            publicKey: Certificate.PublicKey(leafKey.publicKey),
            notValidBefore: Date().addingTimeInterval(-60),
            notValidAfter: Date().addingTimeInterval(3_600),
            issuer: x509.subject,
            subject: try DistinguishedName { CommonName(commonName) },
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                Critical(KeyUsage(digitalSignature: true))
                try ExtendedKeyUsage([usage == .server ? .serverAuth : .clientAuth])
                if !names.isEmpty { SubjectAlternativeNames(names) }
            },
            issuerPrivateKey: Certificate.PrivateKey(key)
        )
        let certificatePEM = try leaf.serializeAsPEM().pemString
        let keyPEM = leafKey.pemRepresentation
        return Issued(
            certificate: try NIOSSLCertificate(bytes: Array(certificatePEM.utf8), format: .pem),
            privateKey: try NIOSSLPrivateKey(bytes: Array(keyPEM.utf8), format: .pem),
            certificatePEM: certificatePEM,
            privateKeyPEM: keyPEM
        )
    }

    /// A server TLS configuration presenting `server`; with `requiringClientCertificates`, it
    /// asks every client for a certificate signed by this authority and refuses the handshake without one.
    package func serverConfiguration(presenting server: Issued, requiringClientCertificates: Bool = false) -> TLSConfiguration {
        var tls = TLSConfiguration.makeServerConfiguration(
            certificateChain: [.certificate(server.certificate)], privateKey: .privateKey(server.privateKey)
        )
        if requiringClientCertificates {
            tls.certificateVerification = .noHostnameVerification
            tls.trustRoots = .certificates([certificate])
        }
        return tls
    }
}
