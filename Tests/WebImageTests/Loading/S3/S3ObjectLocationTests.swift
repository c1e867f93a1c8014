import Foundation
import Testing
@testable import WebImage

@Suite("s3:// URLs and the requests made of them")
struct S3ObjectLocationTests {
    @Test("the host is the bucket, the path the key, the whole query the version ID")
    func parsing() throws {
        let plain = try S3ObjectLocation(url: URL(string: "s3://photos/cats/tom.jpg")!)
        #expect(plain == S3ObjectLocation(bucket: "photos", key: "cats/tom.jpg"))
        let versioned = try S3ObjectLocation(url: URL(string: "s3://photos/cats/tom.jpg?3HL4kqtJlcpXroDTDmJ.rmSpXd3dIbrHY")!)
        #expect(versioned.versionID == "3HL4kqtJlcpXroDTDmJ.rmSpXd3dIbrHY")
        #expect(versioned.description == "s3://photos/cats/tom.jpg?3HL4kqtJlcpXroDTDmJ.rmSpXd3dIbrHY")
        #expect(try S3ObjectLocation(url: URL(string: "s3://photos/my%20cat.jpg")!).key == "my cat.jpg")
        #expect(try S3ObjectLocation(url: URL(string: "s3://photos/a.jpg?")!).versionID == nil)
    }

    @Test("a URL without a bucket or a key, or of another scheme, is an invalid URL that says the form")
    func refusals() {
        for text in ["s3://photos", "s3://photos/", "s3:///key.jpg", "https://photos/key.jpg"] {
            #expect {
                try S3ObjectLocation(url: URL(string: text)!)
            } throws: { error in
                guard case .invalidURL(let message) = error as? ImageError else { return false }
                return message.contains("s3://")
            }
        }
    }

    @Test("path style: <endpoint>/<bucket>/<key>, the key encoded once, the version as versionId")
    func pathStyle() throws {
        let configuration = S3Configuration(endpoint: "http://127.0.0.1:9000", usesPathStyle: true)
        let location = S3ObjectLocation(bucket: "photos", key: "cats/my cat+1.jpg", versionID: "v 1")
        let request = try configuration.request(for: location, region: "us-east-1")
        #expect(request.url.absoluteString == "http://127.0.0.1:9000/photos/cats/my%20cat%2B1.jpg?versionId=v%201")
        #expect(request.signable.path == "/photos/cats/my cat+1.jpg")
        #expect(request.signable.headers.first?.value == "127.0.0.1:9000")
    }

    @Test("virtual-host style: the bucket is a subdomain of the endpoint's host")
    func virtualHostStyle() throws {
        let configuration = S3Configuration(endpoint: "https://s3.example.com:443/", usesPathStyle: false)
        let request = try configuration.request(for: S3ObjectLocation(bucket: "photos", key: "a.jpg"), region: "eu-west-1")
        #expect(request.url.absoluteString == "https://photos.s3.example.com/a.jpg")
        #expect(request.signable.headers.first?.value == "photos.s3.example.com")
    }

    @Test("an endpoint without a scheme is http://, and its path comes before the bucket")
    func endpointForms() throws {
        let configuration = S3Configuration(endpoint: "minio.internal:9000/storage")
        let request = try configuration.request(for: S3ObjectLocation(bucket: "b", key: "k.png"), region: "us-east-1")
        #expect(request.url.absoluteString == "http://minio.internal:9000/storage/b/k.png")
        #expect(throws: ImageError.self) { try S3Configuration(endpoint: "http://").request(for: S3ObjectLocation(bucket: "b", key: "k"), region: "r") }
    }

    @Test("AWS itself: virtual-hosted in the region, path style for a bucket that cannot be a TLS host label")
    func awsEndpoint() throws {
        let configuration = S3Configuration(region: "eu-central-1")
        let hosted = try configuration.request(for: S3ObjectLocation(bucket: "photos", key: "a.jpg"), region: "eu-central-1")
        #expect(hosted.url.absoluteString == "https://photos.s3.eu-central-1.amazonaws.com/a.jpg")
        let dotted = try configuration.request(for: S3ObjectLocation(bucket: "images.example.com", key: "a.jpg"), region: "eu-central-1")
        #expect(dotted.url.absoluteString == "https://s3.eu-central-1.amazonaws.com/images.example.com/a.jpg")
    }

    @Test("the AWS variables: region from AWS_REGION, else AWS_DEFAULT_REGION, else us-east-1; credentials from the default chain")
    func environment() async throws {
        #expect(try S3Configuration.fromEnvironment(["AWS_REGION": "eu-west-3", "AWS_DEFAULT_REGION": "ap-south-1"]).region == "eu-west-3")
        #expect(try S3Configuration.fromEnvironment(["AWS_DEFAULT_REGION": "ap-south-1"]).region == "ap-south-1")
        #expect(try S3Configuration.fromEnvironment([:]).region == "us-east-1")
        let unsigned = try S3Configuration.fromEnvironment(["AWS_EC2_METADATA_DISABLED": "true"])
        #expect(unsigned.credentialsProvider is AWSCredentialsChain)
        #expect(try await unsigned.credentialsProvider?.credentials() == nil)
    }

    @Test("S3's XML error: code, message and region read, entities decoded")
    func errorDocument() {
        let xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <Error><Code>AuthorizationHeaderMalformed</Code><Message>the region &apos;us-east-1&apos; is wrong</Message><Region>eu-west-1</Region></Error>
            """
        let document = S3ErrorDocument(Array(xml.utf8))
        #expect(document.code == "AuthorizationHeaderMalformed")
        #expect(document.message == "the region 'us-east-1' is wrong")
        #expect(document.region == "eu-west-1")
        #expect(S3ErrorDocument(Array("".utf8)).summary == nil)
    }

    @Test("a bucket becomes a host name only when AWS's rules allow its name; in the path, older names' characters only")
    func bucketNamesAreValidated() throws {
        for valid in ["photos", "my-photos.2024", "a1b", String(repeating: "a", count: 63)] {
            #expect(S3Configuration.isValidBucketName(valid), "\(valid)")
        }
        for invalid in ["ab", String(repeating: "a", count: 64), "Photos", "-photos", "photos-", "my..photos", "192.168.1.1",
                        "xn--photos", "photos-s3alias", "photos.mrap", "evil.com#", "evil.com/x", "a b", "host:80", "user@evil"] {
            #expect(!S3Configuration.isValidBucketName(invalid), "\(invalid)")
        }
        var configuration = S3Configuration(endpoint: "http://127.0.0.1:9000", usesPathStyle: false)
        #expect(throws: ImageError.self) { try configuration.request(for: S3ObjectLocation(bucket: "evil.example#", key: "a.jpg"), region: "us-east-1") }
        #expect(try configuration.request(for: S3ObjectLocation(bucket: "photos", key: "a.jpg"), region: "us-east-1").url.host == "photos.127.0.0.1")
        // Path style keeps older names (upper case, underscores), never other characters.
        configuration.usesPathStyle = true
        #expect(try configuration.request(for: S3ObjectLocation(bucket: "Old_Bucket", key: "a.jpg"), region: "us-east-1").url.path == "/Old_Bucket/a.jpg")
        #expect(throws: ImageError.self) { try configuration.request(for: S3ObjectLocation(bucket: "a b", key: "a.jpg"), region: "us-east-1") }
    }
}
