import Foundation
import NIOCore

/// The playground of `--playground`: an HTML page at `/` with form controls for the
/// processing options, the imgproxy URL they make, the image this server answers for it
/// (size, format, bytes, time, `X-Quality`, `X-Image-Score`) and its `/info` JSON. Its
/// script and style are served at ``scriptPath`` and ``stylePath``; nothing comes from
/// elsewhere.
///
/// The page is rendered once, when the server starts, with what it needs to know about the
/// configuration: whether URLs must be signed (a browser cannot sign them: the key stays on
/// the server), whether only presets are accepted, and the sample images of the local root.
struct PlaygroundPage: Sendable {
    /// A file the playground serves: its media type and bytes.
    struct Asset: Sendable {
        let contentType: String
        let body: ByteBuffer
    }

    /// Where the page's script is served.
    static let scriptPath = "/playground.js"
    /// Where the page's style sheet is served.
    static let stylePath = "/playground.css"
    /// The most sample images the page lists.
    static let maxSamples = 50

    /// The page's own policy, in place of the image responses' `default-src 'none'; …
    /// sandbox`, which would stop its script. It allows exactly what the page uses: its
    /// script and style from this origin, `fetch()` of this origin (the image and its
    /// `/info`), and images from this origin or the `blob:` URLs the fetched images are
    /// shown through; no inline script, no plugins, no framing, no form posts.
    static let contentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' blob:; "
        + "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

    /// The page: `Resources/Playground/playground.html` with its `{{…}}` fields filled in.
    let page: Asset
    /// `Resources/Playground/playground.js` (the files are compiled into the binary).
    static let script = Asset(contentType: "text/javascript; charset=utf-8", body: ByteBuffer(bytes: PackageResources.playground_js))
    /// `Resources/Playground/playground.css`.
    static let style = Asset(contentType: "text/css; charset=utf-8", body: ByteBuffer(bytes: PackageResources.playground_css))

    /// Renders the page.
    /// - Parameters:
    ///   - signingRequired: whether the server checks signatures (then URLs built with
    ///     `insecure` are refused and the page says so).
    ///   - onlyPresets: whether the server accepts only preset names as options.
    ///   - samples: `local:///` image names offered as sources.
    ///   - pathPrefix: the server's path prefix, in front of every path the page uses.
    init(signingRequired: Bool, onlyPresets: Bool, samples: [String], pathPrefix: String = "") {
        let template = String(decoding: PackageResources.playground_html, as: UTF8.self)
        page = Asset(
            contentType: "text/html; charset=utf-8",
            body: ByteBuffer(string: Self.html(
                template: template, signingRequired: signingRequired, onlyPresets: onlyPresets, samples: samples, pathPrefix: pathPrefix
            ))
        )
    }

    /// The page for a server with `config`: the samples are the images at the top of its
    /// local file-system root.
    init(config: ServerConfig) {
        self.init(
            signingRequired: !config.signing.keys.isEmpty, onlyPresets: config.signing.onlyPresets,
            samples: Self.samples(inDirectory: config.sources.localFilesystemRoot), pathPrefix: config.listen.pathPrefix ?? ""
        )
    }

    /// JPEG, PNG, WebP, GIF and AVIF files at the top of `directory`, sorted, limited to
    /// names a plain source carries as they are (letters, digits, `-`, `_`, `.`).
    static func samples(inDirectory directory: String?) -> [String] {
        guard let directory, !directory.isEmpty,
              let names = try? FileManager.default.contentsOfDirectory(atPath: directory)
        else { return [] }
        let images: Set<String> = ["jpg", "jpeg", "png", "webp", "gif", "avif"]
        return Array(names.filter { name in
            images.contains((name as NSString).pathExtension.lowercased())
                && name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "-_.".contains($0)) }
        }.sorted().prefix(maxSamples))
    }

    /// `text` with the characters HTML gives meaning to escaped.
    static func escaped(_ text: String) -> String {
        var result = ""
        for character in text {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&#39;"
            default: result.append(character)
            }
        }
        return result
    }

    /// The page `template` with its `{{…}}` fields filled in.
    static func html(template: String, signingRequired: Bool, onlyPresets: Bool, samples: [String], pathPrefix: String = "") -> String {
        let sampleOptions = samples.map { name in
            let source = escaped("local:///" + name)
            return #"<option value="\#(source)">\#(source)</option>"#
        }.joined(separator: "\n          ")
        let hasSamples = !samples.isEmpty
        let fields = [
            "signing-required": String(signingRequired),
            "signing-notice-hidden": signingRequired ? "" : " hidden",
            "presets-notice-hidden": onlyPresets ? "" : " hidden",
            "sample-choice": hasSamples ? " checked" : " disabled",
            "sample-list": hasSamples ? "" : " disabled",
            "sample-options": hasSamples ? sampleOptions : #"<option value="">no local file-system root</option>"#,
            "url-choice": hasSamples ? "" : " checked",
            "path-prefix": escaped(pathPrefix),
        ]
        var page = template
        for (name, value) in fields {
            page = page.replacing("{{\(name)}}", with: value)
        }
        return page
    }
}
