import Testing
import WebImageServer

struct ServerNamespaceTests {
    @Test func serverHeaderNamesWebImage() {
        #expect(WebImageServer.serverHeader.hasPrefix("WebImage/"))
    }
}
