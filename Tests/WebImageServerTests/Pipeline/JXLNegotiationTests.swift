import Foundation
import Testing
@testable import WebImage
@testable import WebImageServer
import WebImageTestSupport

/// JPEG XL chosen from `Accept` (`--auto-jxl`, `--enforce-jxl`), with imgproxy's precedence
/// among JPEG XL, AVIF and WebP, and the encoder settings a served variant is written with.
@Suite("JPEG XL negotiation and encoder settings")
struct JXLNegotiationTests {
    /// One case of imgproxy's `clientfeatures/detector_test.go` `TestFeaturesAutoFormats`:
    /// the settings on, the `Accept` header, and the format the client is preferred
    /// (`Prefer…`) and enforced (`Enforce…`).
    struct DetectorCase: Sendable, CustomTestStringConvertible {
        let name: String
        let settings: Set<String>
        let accept: String
        let preferred: ImageFormat?
        let enforced: Bool
        var testDescription: String { name }

        var negotiation: FormatNegotiation {
            var negotiation = FormatNegotiation(autoWebP: settings.contains("AutoWebp"), autoAVIF: settings.contains("AutoAvif"), preferredFormats: [.jpeg, .png, .gif])
            negotiation.enforceWebP = settings.contains("EnforceWebp")
            negotiation.enforceAVIF = settings.contains("EnforceAvif")
            negotiation.autoJXL = settings.contains("AutoJxl")
            negotiation.enforceJXL = settings.contains("EnforceJxl")
            return negotiation
        }
    }

    static let browserAccept = "image/apng,image/*,*/*;q=0.8"

    /// Ported from imgproxy's `TestFeaturesAutoFormats` (v4.0), case for case.
    static let detectorCases: [DetectorCase] = [
        DetectorCase(name: "AutoWebP_ConainsWebP", settings: ["AutoWebp"], accept: "image/webp," + browserAccept, preferred: .webp, enforced: false),
        DetectorCase(name: "AutoWebP_DoesNotContainWebP", settings: ["AutoWebp"], accept: browserAccept, preferred: nil, enforced: false),
        DetectorCase(name: "EnforceWebP_ContainsWebP", settings: ["EnforceWebp"], accept: "image/webp," + browserAccept, preferred: .webp, enforced: true),
        DetectorCase(name: "EnforceWebP_DoesNotContainWebP", settings: ["EnforceWebp"], accept: browserAccept, preferred: nil, enforced: false),
        DetectorCase(name: "AutoAvif_ContainsAvif", settings: ["AutoAvif"], accept: "image/avif," + browserAccept, preferred: .avif, enforced: false),
        DetectorCase(name: "AutoAvif_DoesNotContainAvif", settings: ["AutoAvif"], accept: browserAccept, preferred: nil, enforced: false),
        DetectorCase(name: "EnforceAvif_ContainsAvif", settings: ["EnforceAvif"], accept: "image/avif," + browserAccept, preferred: .avif, enforced: true),
        DetectorCase(name: "EnforceAvif_DoesNotContainAvif", settings: ["EnforceAvif"], accept: browserAccept, preferred: nil, enforced: false),
        DetectorCase(name: "AutoJXL_ContainsJXL", settings: ["AutoJxl"], accept: "image/jxl," + browserAccept, preferred: .jxl, enforced: false),
        DetectorCase(name: "AutoJXL_DoesNotContainJXL", settings: ["AutoJxl"], accept: browserAccept, preferred: nil, enforced: false),
        DetectorCase(name: "EnforceJXL_ContainsJXL", settings: ["EnforceJxl"], accept: "image/jxl," + browserAccept, preferred: .jxl, enforced: true),
        DetectorCase(name: "EnforceJXL_DoesNotContainJXL", settings: ["EnforceJxl"], accept: browserAccept, preferred: nil, enforced: false),
        DetectorCase(name: "NoneEnabled_ContainsAll", settings: [], accept: "image/webp,image/avif,image/jxl," + browserAccept, preferred: nil, enforced: false),
    ]

    @Test("imgproxy TestFeaturesAutoFormats: a URL without a format gets the preferred one; a URL naming one, the enforced one", arguments: detectorCases)
    func detectorCase(_ item: DetectorCase) {
        let negotiation = item.negotiation
        #expect(negotiation.choice(requested: nil, accept: item.accept).still == (item.preferred.map { .negotiated($0) } ?? .fromSource))
        let named = negotiation.choice(requested: .png, accept: item.accept).still
        #expect(named == (item.enforced ? .negotiated(item.preferred ?? .png) : .explicit(.png)))
        #expect(negotiation.variesWithAccept == !item.settings.isEmpty)
    }

    /// imgproxy's `processing.determineOutputFormat`: JPEG XL before AVIF before WebP, for
    /// a URL without a format (`Prefer…`) and one naming a format (`Enforce…`).
    @Test("JPEG XL comes before AVIF, and AVIF before WebP, when the client accepts several")
    func precedence() {
        var auto = FormatNegotiation(autoWebP: true, autoAVIF: true, preferredFormats: [.jpeg])
        auto.autoJXL = true
        var enforced = FormatNegotiation(autoWebP: false, autoAVIF: false, preferredFormats: [.jpeg])
        enforced.enforceWebP = true
        enforced.enforceAVIF = true
        enforced.enforceJXL = true
        for (accept, format) in [
            ("image/webp,image/avif,image/jxl", ImageFormat.jxl), ("image/webp,image/avif", .avif), ("image/webp,image/jxl;q=0", .webp),
        ] {
            #expect(auto.choice(requested: nil, accept: accept).still == .negotiated(format), "\(accept)")
            #expect(enforced.choice(requested: .png, accept: accept).still == .negotiated(format), "\(accept)")
            #expect(enforced.choice(requested: nil, accept: accept).still == .negotiated(format), "\(accept)")
        }
        #expect(auto.choice(requested: .png, accept: "image/jxl") == .explicit(.png), "auto does not replace a named format")
        // With WebP negotiated, AVIF and JPEG XL each come with and without WebP for animations.
        let negotiated: [FormatNegotiation.Choice] = [
            .negotiated(.jxl, animated: .webp), .negotiated(.jxl), .negotiated(.avif, animated: .webp), .negotiated(.avif), .negotiated(.webp),
        ]
        #expect(auto.possibleChoices(requested: nil) == [.fromSource] + negotiated)
        #expect(enforced.possibleChoices(requested: .png) == [.explicit(.png)] + negotiated)
        #expect(auto.possibleChoices(requested: .png) == [.explicit(.png)])
    }

    @Test("format:best offers JPEG XL only to clients that accept it")
    func bestFormat() {
        var negotiation = FormatNegotiation(autoWebP: false, autoAVIF: false, preferredFormats: [.jpeg])
        negotiation.bestFormats = [.jpeg, .jxl, .webp]
        #expect(negotiation.choice(requested: nil, best: true, accept: "image/jxl,image/webp") == .best([.jpeg, .jxl, .webp]))
        #expect(negotiation.choice(requested: nil, best: true, accept: "image/webp") == .best([.jpeg, .webp]))
        #expect(negotiation.bestVariesWithAccept)
        #expect(Set(negotiation.possibleChoices(requested: nil, best: true)) == [.best([.jpeg, .jxl, .webp]), .best([.jpeg, .webp]), .best([.jpeg, .jxl]), .best([.jpeg])])
    }

    @Test("with --auto-jxl, Accept: image/jxl gets JPEG XL with Vary: Accept; --enforce-jxl replaces a named format")
    func served() async throws {
        try await TestProxy.with(configure: { $0.encoding.autoJXL = true }) { (origin, proxy) async throws in
            origin.register("/photo.jpg", .image(ProxyImages.jpeg))
            let path = proxyPath("rs:fit:64:64", source: origin.url("/photo.jpg"))
            let jxl = try await proxy.get(path, headers: [("Accept", "image/jxl,image/avif,image/webp,*/*")])
            #expect(jxl.status == 200, "\(jxl.text.prefix(200))")
            #expect(jxl.header("content-type") == "image/jxl" && ImageFormat(data: jxl.body) == .jxl)
            #expect(jxl.header("vary") == "Accept")
            let avif = try await proxy.get(path, headers: [("Accept", "image/avif,image/webp,*/*")])
            #expect(avif.header("content-type") == "image/avif")
            let named = try await proxy.get(proxyPath("rs:fit:64:64/f:png", source: origin.url("/photo.jpg")), headers: [("Accept", "image/jxl")])
            #expect(named.header("content-type") == "image/png" && named.header("vary") == nil)
        }
        try await TestProxy.with(configure: { $0.encoding.enforceJXL = true; $0.encoding.autoWebP = false; $0.encoding.autoAVIF = false }) { (origin, proxy) async throws in
            origin.register("/photo.jpg", .image(ProxyImages.jpeg))
            let path = proxyPath("rs:fit:64:64/f:png", source: origin.url("/photo.jpg"))
            let enforced = try await proxy.get(path, headers: [("Accept", "image/jxl,*/*")])
            #expect(enforced.header("content-type") == "image/jxl" && enforced.header("vary") == "Accept")
            let plain = try await proxy.get(path, headers: [("Accept", "image/webp,*/*")])
            #expect(plain.header("content-type") == "image/png" && plain.header("vary") == "Accept")
        }
    }

    @Test("the server's encoder settings reach the bytes: progressive JPEG, interlaced palette PNG")
    func encoderSettingsServed() async throws {
        for tuned in [false, true] {
            try await TestProxy.with(configure: { config in
                config.encoding.autoWebP = false
                config.encoding.autoAVIF = false
                config.encoding.jpegProgressive = tuned
                config.encoding.pngInterlaced = tuned
                config.encoding.pngQuantize = tuned
                config.encoding.pngQuantizationColors = 16
            }) { (origin, proxy) async throws in
                origin.register("/photo.jpg", .image(ProxyImages.jpeg))
                let jpeg = try await proxy.get(proxyPath("rs:fit:64:64", source: origin.url("/photo.jpg"), extension: "jpg"))
                let png = try await proxy.get(proxyPath("rs:fit:64:64", source: origin.url("/photo.jpg"), extension: "png"))
                #expect(jpeg.status == 200 && png.status == 200)
                #expect(EncodedStructure.jpegMarkers(jpeg.body).contains(tuned ? 0xC2 : 0xC0))
                let header = try #require(EncodedStructure.pngHeader(png.body))
                #expect(header.interlace == (tuned ? 1 : 0) && (header.colorType == 3) == tuned)
                if tuned { #expect(try #require(EncodedStructure.pngPaletteCount(png.body)) <= 16) }
            }
        }
    }
}

extension FormatNegotiation.Choice {
    /// The choice without the format an animation gets instead of the negotiated one.
    var still: Self {
        if case .negotiated(let format, _) = self { return .negotiated(format) }
        return self
    }
}
