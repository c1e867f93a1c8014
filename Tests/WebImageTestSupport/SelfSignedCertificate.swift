import Crypto
import Foundation
import NIOSSL
import X509

/// A throw-away self-signed certificate for localhost, made when a test needs an HTTPS
/// origin (no key or certificate is committed).
package struct SelfSignedCertificate {
    package let certificate: NIOSSLCertificate
    package let privateKey: NIOSSLPrivateKey

    package init() throws {
        let key = P256.Signing.PrivateKey()
        let name = try DistinguishedName { CommonName("WebImage test origin") }
        let certificate = try Certificate(
            version: .v3,
            serialNumber: Certificate.SerialNumber(),
            publicKey: Certificate.PublicKey(key.publicKey),
            notValidBefore: Date().addingTimeInterval(-60),
            notValidAfter: Date().addingTimeInterval(3_600),
            issuer: name,
            subject: name,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                SubjectAlternativeNames([.dnsName("localhost")])
            },
            issuerPrivateKey: Certificate.PrivateKey(key)
        )
        self.certificate = try NIOSSLCertificate(bytes: Array(try certificate.serializeAsPEM().pemString.utf8), format: .pem)
        self.privateKey = try NIOSSLPrivateKey(bytes: Array(key.pemRepresentation.utf8), format: .pem)
    }

    /// A server TLS configuration presenting this certificate.
    package var serverConfiguration: TLSConfiguration {
        TLSConfiguration.makeServerConfiguration(certificateChain: [.certificate(certificate)], privateKey: .privateKey(privateKey))
    }
}
