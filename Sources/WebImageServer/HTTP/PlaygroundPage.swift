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

    private let page: Asset
    private static let script = Asset(contentType: "text/javascript; charset=utf-8", body: ByteBuffer(string: scriptSource))
    private static let style = Asset(contentType: "text/css; charset=utf-8", body: ByteBuffer(string: styleSource))

    /// Renders the page.
    /// - Parameters:
    ///   - signingRequired: whether the server checks signatures (then URLs built with
    ///     `insecure` are refused and the page says so).
    ///   - onlyPresets: whether the server accepts only preset names as options.
    ///   - samples: `local:///` image names offered as sources.
    init(signingRequired: Bool, onlyPresets: Bool, samples: [String]) {
        page = Asset(
            contentType: "text/html; charset=utf-8",
            body: ByteBuffer(string: Self.html(signingRequired: signingRequired, onlyPresets: onlyPresets, samples: samples))
        )
    }

    /// The page for a server with `config`: the samples are the images at the top of its
    /// local file-system root.
    init(config: ServerConfig) {
        self.init(
            signingRequired: !config.keys.isEmpty, onlyPresets: config.onlyPresets,
            samples: Self.samples(inDirectory: config.localFilesystemRoot)
        )
    }

    /// The asset served at `path`, or `nil` when the path is not the playground's.
    func asset(at path: String) -> Asset? {
        switch path {
        case "/": page
        case Self.scriptPath: Self.script
        case Self.stylePath: Self.style
        default: nil
        }
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

    private static func html(signingRequired: Bool, onlyPresets: Bool, samples: [String]) -> String {
        let sampleOptions = samples.map { name in
            let source = escaped("local:///" + name)
            return #"<option value="\#(source)">\#(source)</option>"#
        }.joined(separator: "\n          ")
        let hasSamples = !samples.isEmpty
        return #"""
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>WebImage playground</title>
        <link rel="stylesheet" href="\#(stylePath)">
        <script src="\#(scriptPath)" defer></script>
        </head>
        <body data-signing-required="\#(signingRequired)">
        <header>
          <h1>WebImage playground</h1>
          <p>Set processing options, see the imgproxy URL they make and what this server answers for it.</p>
        </header>
        <p id="signing-notice" class="notice"\#(signingRequired ? "" : " hidden")>This server checks URL signatures, and this page
          cannot sign: the key stays on the server. The URLs built here say <code>insecure</code>, so the server
          answers 403. Sign URLs where the key is (HMAC-SHA256 of the path with the key and salt, URL-safe base64),
          as your application does.</p>
        <p id="presets-notice" class="notice"\#(onlyPresets ? "" : " hidden")>This server accepts only preset names as
          options, so the URLs built here are refused.</p>
        <main>
        <form id="options" autocomplete="off">
          <fieldset>
            <legend>Source</legend>
            <label><input type="radio" name="source-kind" id="source-sample" value="sample"\#(hasSamples ? " checked" : " disabled")> Sample</label>
            <select id="sample"\#(hasSamples ? "" : " disabled")>
          \#(hasSamples ? sampleOptions : #"<option value="">no local file-system root</option>"#)
            </select>
            <label><input type="radio" name="source-kind" id="source-custom" value="url"\#(hasSamples ? "" : " checked")> URL</label>
            <input id="source-url" type="text" inputmode="url" spellcheck="false" placeholder="https://example.com/photo.jpg">
          </fieldset>
          <fieldset>
            <legend>Resize</legend>
            <label for="resize-type">Type</label>
            <select id="resize-type">
              <option value="fit" selected>fit</option>
              <option value="fill">fill</option>
              <option value="fill-down">fill-down</option>
              <option value="force">force</option>
              <option value="auto">auto</option>
            </select>
            <label for="width">Width</label>
            <input id="width" type="number" min="0" step="1" value="300">
            <label for="height">Height</label>
            <input id="height" type="number" min="0" step="1" value="0">
            <label for="gravity">Gravity</label>
            <select id="gravity">
              <option value="" selected>default (centre)</option>
              <option value="ce">ce: centre</option>
              <option value="sm">sm: smart</option>
              <option value="no">no: north</option>
              <option value="so">so: south</option>
              <option value="ea">ea: east</option>
              <option value="we">we: west</option>
              <option value="noea">noea: north-east</option>
              <option value="nowe">nowe: north-west</option>
              <option value="soea">soea: south-east</option>
              <option value="sowe">sowe: south-west</option>
            </select>
            <label for="dpr">DPR</label>
            <input id="dpr" type="number" min="1" max="8" step="0.5" value="1">
          </fieldset>
          <fieldset>
            <legend>Output</legend>
            <label for="quality">Quality</label>
            <span class="pair"><input id="quality" type="number" min="1" max="100" step="1" value="" placeholder="default">
            <label class="inline"><input id="quality-auto" type="checkbox"> auto</label></span>
            <label for="format">Format</label>
            <select id="format">
              <option value="auto" selected>auto (Accept)</option>
              <option value="jpeg">jpeg</option>
              <option value="png">png</option>
              <option value="webp">webp</option>
              <option value="avif">avif</option>
              <option value="best">best</option>
            </select>
          </fieldset>
          <fieldset>
            <legend>Filters</legend>
            <label for="blur">Blur (sigma)</label>
            <input id="blur" type="number" min="0" step="0.5" value="0">
            <label for="sharpen">Sharpen (sigma)</label>
            <input id="sharpen" type="number" min="0" step="0.5" value="0">
          </fieldset>
        </form>
        <section id="output" aria-live="polite">
          <h2>URL</h2>
          <p class="url"><code id="built-url"></code></p>
          <p><a id="open-url" href="/" target="_blank" rel="noopener">open in a new tab</a></p>
          <p id="status" class="status"></p>
          <figure><img id="result" alt="the processed image"></figure>
          <dl class="facts">
            <dt>Size</dt><dd id="result-size">–</dd>
            <dt>Format</dt><dd id="result-format">–</dd>
            <dt>Bytes</dt><dd id="result-bytes">–</dd>
            <dt>Time</dt><dd id="result-time">–</dd>
            <dt>X-Quality</dt><dd id="result-quality">–</dd>
            <dt>X-Image-Score</dt><dd id="result-score">–</dd>
          </dl>
          <h2>Info</h2>
          <pre id="info"></pre>
        </section>
        </main>
        </body>
        </html>

        """#
    }
}
