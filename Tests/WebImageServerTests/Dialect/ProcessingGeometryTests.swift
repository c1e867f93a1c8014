import Testing
import WebImage
@testable import WebImageServer

// Where gravity puts crops and padding (the pixel-free half of the plan).
@Suite("Proxy processing geometry")
struct ProcessingGeometryTests {
    static let box = PixelSize(width: 300, height: 300)
    static let image = PixelSize(width: 600, height: 300)

    /// Gravity, dpr, expected origin of a 300×300 box in a 600×300 image.
    static let origins: [(ProxyGravity, Double, Int, Int)] = [
        (.center, 1, 150, 0),
        (.anchor(.west, xOffset: 0, yOffset: 0), 1, 0, 0),
        (.anchor(.east, xOffset: 0, yOffset: 0), 1, 300, 0),
        (.anchor(.northWest, xOffset: 10, yOffset: 10), 1, 10, 0),
        (.anchor(.northWest, xOffset: 10, yOffset: 10), 2, 20, 0),
        (.anchor(.southEast, xOffset: 10, yOffset: 5), 1, 290, 0),
        (.anchor(.east, xOffset: 0.1, yOffset: 0), 1, 240, 0),
        (.anchor(.center, xOffset: -0.25, yOffset: 0), 1, 0, 0),
        (.anchor(.center, xOffset: 20, yOffset: 0), 1, 170, 0),
        (.anchor(.west, xOffset: 1000, yOffset: 0), 1, 300, 0),
        (.focusPoint(x: 0, y: 0), 1, 0, 0),
        (.focusPoint(x: 1, y: 1), 1, 300, 0),
        (.focusPoint(x: 0.5, y: 0.5), 1, 150, 0),
        (.focusPoint(x: 0.4, y: 0.5), 1, 90, 0),
    ]

    @Test("S5 gravity anchors, offsets (pixels × dpr, or fractions), focus points; always inside the image", arguments: origins)
    func origin(_ example: (ProxyGravity, Double, Int, Int)) {
        let origin = ProcessingGeometry.origin(of: Self.box, in: Self.image, gravity: example.0, offsetScale: example.1)
        #expect(origin.x == example.2 && origin.y == example.3, "\(example.0) dpr \(example.1): \(origin)")
    }

    @Test("S5 vertical anchors and offsets move away from the anchored edge")
    func vertical() {
        let tall = PixelSize(width: 100, height: 500)
        let small = PixelSize(width: 100, height: 100)
        #expect(ProcessingGeometry.origin(of: small, in: tall, gravity: .anchor(.north, xOffset: 0, yOffset: 10), offsetScale: 1).y == 10)
        #expect(ProcessingGeometry.origin(of: small, in: tall, gravity: .anchor(.south, xOffset: 0, yOffset: 10), offsetScale: 1).y == 390)
        #expect(ProcessingGeometry.origin(of: small, in: tall, gravity: .center, offsetScale: 1).y == 200)
        #expect(ProcessingGeometry.origin(of: small, in: tall, gravity: .anchor(.southWest, xOffset: 0, yOffset: 0.5), offsetScale: 1).y == 150)
    }

    @Test("S5 steps: crop option, resize, fill crop and padding in order")
    func steps() throws {
        let options = try ProxyURLParser(keys: []).parse(path: "/_/c:800:400:nowe/rs:fill:200:300:0:1:so/plain/http://h/a.jpg").options
        let geometry = ProcessingGeometry(options: options, sourceSize: PixelSize(width: 1000, height: 500))
        #expect(geometry.sourceCut == .rect(x: 0, y: 0, width: 800, height: 400))
        #expect(geometry.resize == PixelSize(width: 600, height: 300))
        #expect(geometry.resultCut == .rect(x: 200, y: 0, width: 200, height: 300))
        #expect(geometry.padding == nil)
        #expect(geometry.outputSize == PixelSize(width: 200, height: 300))

        let padded = ProcessingGeometry(options: try ProxyURLParser(keys: []).parse(path: "/_/rs:fit:2000:2000:0:1:so/plain/http://h/a.jpg").options,
                                        sourceSize: PixelSize(width: 1000, height: 500))
        #expect(padded.resize == nil && padded.resultCut == nil)
        #expect(padded.padding == ProcessingGeometry.Placement(canvas: PixelSize(width: 2000, height: 2000), x: 500, y: 1500))

        let smart = ProcessingGeometry(options: try ProxyURLParser(keys: []).parse(path: "/_/rs:fill:100:100/g:sm/plain/http://h/a.jpg").options,
                                       sourceSize: PixelSize(width: 1000, height: 500))
        #expect(smart.resize == PixelSize(width: 200, height: 100))
        #expect(smart.resultCut == .smart(width: 100, height: 100))
    }
}
