import Foundation
import Testing
@testable import WebImage

/// How `gs://` URLs name a bucket, an object and a generation.
@Suite("GCS object locations")
struct GCSObjectLocationTests {
    @Test("the host is the bucket, the path the object's name (escapes decoded), a positive integer query the generation")
    func parts() throws {
        let plain = try GCSObjectLocation(url: URL(string: "gs://photos/cats/tom%20cat.jpg")!)
        #expect(plain == GCSObjectLocation(bucket: "photos", name: "cats/tom cat.jpg"))
        #expect(plain.description == "gs://photos/cats/tom cat.jpg")
        let generation = try GCSObjectLocation(url: URL(string: "GS://photos/a.png?1700000000000001")!)
        #expect(generation.generation == 1_700_000_000_000_001)
        #expect(generation.description == "gs://photos/a.png?1700000000000001")
        // A query that is not a generation is ignored, as imgproxy ignores it.
        #expect(try GCSObjectLocation(url: URL(string: "gs://photos/a.png?v=2")!).generation == nil)
        #expect(try GCSObjectLocation(url: URL(string: "gs://photos/a.png?0")!).generation == nil)
        #expect(try GCSObjectLocation(url: URL(string: "gs://my_bucket.example.com/a.png")!).bucket == "my_bucket.example.com")
    }

    @Test("a URL without a bucket or an object, or with a bucket name GCS does not allow, is invalidURL saying the form")
    func refusedURLs() {
        for (text, says) in [
            ("gs:///a.png", "names no bucket"),
            ("gs://photos", "names no object"),
            ("gs://photos/", "names no object"),
            ("gs://ab/a.png", "not a valid GCS bucket name"),
            ("gs://-photos/a.png", "not a valid GCS bucket name"),
            ("s3://photos/a.png", "gs://<bucket>/<object>"),
        ] {
            #expect {
                _ = try GCSObjectLocation(url: URL(string: text)!)
            } throws: { error in
                guard case ImageError.invalidURL(let reason) = error else { return false }
                return reason.contains(says)
            }
        }
    }

    @Test("the endpoint: no scheme is https, a /storage/v1 path and trailing slashes name the same server, a URL without a host is invalidURL")
    func endpoints() throws {
        #expect(try GCSConfiguration().serverURL().absoluteString == "https://storage.googleapis.com")
        #expect(try GCSConfiguration(endpoint: "storage.example.com").serverURL().absoluteString == "https://storage.example.com")
        #expect(try GCSConfiguration(endpoint: "http://127.0.0.1:4443/storage/v1/").serverURL().absoluteString == "http://127.0.0.1:4443")
        #expect(try GCSConfiguration(endpoint: "https://gcs.example.com/proxy/").serverURL().absoluteString == "https://gcs.example.com/proxy")
        #expect(throws: ImageError.self) { try GCSConfiguration(endpoint: "http://").serverURL() }
        let media = try GCSConfiguration().mediaURL(for: GCSObjectLocation(bucket: "photos", name: "a/b c.png", generation: 7))
        #expect(media.absoluteString == "https://storage.googleapis.com/storage/v1/b/photos/o/a%2Fb%20c.png?alt=media&generation=7")
    }
}
