import Foundation
import Testing
import WebImage
import WebImageTestSupport

@Suite("webimage fetch")
struct CLIFetchTests {
    static let png: Data = try! TestImages.encode(try! TestImages.quadrants(width: 40, height: 30), as: .png)

    @Test("fetch writes the image and prints one JSON line; the second run is a disk hit")
    func fetchJSON() async throws {
        try await withCLI { origin, sandbox in
            origin.register("/a.png", .image(Self.png))
            let url = origin.url("/a.png").absoluteString
            let first = try await sandbox.run(["fetch", url, "-o", "out", "--json"])
            #expect(first.status == 0, "\(first.stderr)")
            #expect(first.stderr.isEmpty)
            let record = try #require(try first.jsonLines().first)
            #expect(try first.jsonLines().count == 1)
            #expect(record["url"] as? String == url)
            #expect(record["ok"] as? Bool == true)
            #expect(record["cacheType"] as? String == "none")
            #expect(record["format"] as? String == "png")
            #expect(record["width"] as? Int == 40)
            #expect(record["height"] as? Int == 30)
            #expect(record["bytes"] as? Int == Self.png.count)
            #expect(record["milliseconds"] is Int)
            #expect(record["output"] as? String == "out/a.png")
            #expect(FileManager.default.contents(atPath: sandbox.path("out/a.png")) == Self.png)
            #expect(sandbox.cacheFiles.count == 1, "stored in the default cache under XDG_CACHE_HOME")

            let second = try await sandbox.run(["fetch", url, "-o", "out", "--json"])
            #expect(second.status == 0)
            #expect(try second.jsonLines().first?["cacheType"] as? String == "disk")
            #expect(origin.requestCount("/a.png") == 1)
        }
    }

    @Test("fetch prints one text line per image: URL, source, format, dimensions, bytes, time, file")
    func fetchText() async throws {
        try await withCLI { origin, sandbox in
            origin.register("/a.png", .image(Self.png))
            origin.register("/b.png", .image(Self.png))
            let result = try await sandbox.run(["fetch", origin.url("/a.png").absoluteString, origin.url("/b.png").absoluteString])
            #expect(result.status == 0)
            #expect(result.stdoutLines.count == 2)
            let fields = result.stdoutLines[0].components(separatedBy: "  ")
            #expect(fields.count == 7, "\(fields)")
            #expect(fields[0] == origin.url("/a.png").absoluteString)
            #expect(Array(fields[1...3]) == ["downloaded", "png", "40x30"])
            #expect(fields[4].hasSuffix(" B") || fields[4].hasSuffix(" kB"))
            #expect(fields[5].hasSuffix(" ms"))
            #expect(fields[6] == "-> a.png")
            #expect(result.stdoutLines[1].hasPrefix(origin.url("/b.png").absoluteString))
            #expect(FileManager.default.fileExists(atPath: sandbox.path("b.png")))
            #expect(!result.stderr.contains("\r") && !result.stderr.contains("[#"), "no progress bar when not a terminal")
        }
    }

    @Test("fetch --thumbnail --format --quality re-encodes the thumbnail")
    func fetchThumbnailFormat() async throws {
        try await withCLI { origin, sandbox in
            let large = try TestImages.encode(try TestImages.gradient(width: 400, height: 300), as: .png)
            origin.register("/big.png", .image(large))
            let url = origin.url("/big.png").absoluteString
            let low = try await sandbox.run(["fetch", url, "--thumbnail", "100x100", "--format", "webp", "--quality", "20", "-o", "low", "--json"])
            #expect(low.status == 0, "\(low.stderr)")
            let record = try #require(try low.jsonLines().first)
            #expect(record["format"] as? String == "webp")
            #expect(record["width"] as? Int == 100)
            #expect(record["height"] as? Int == 75)
            let data = try #require(FileManager.default.contents(atPath: sandbox.path("low/big.webp")))
            #expect(ImageFormat(data: data) == .webp)
            #expect(record["bytes"] as? Int == data.count)
            let high = try await sandbox.run(["fetch", url, "--thumbnail", "100x100", "--format", "webp", "--quality", "95", "-o", "high", "--json"])
            #expect(try high.jsonLines().first?["cacheType"] as? String == "disk", "the thumbnail variant was cached")
            let highData = try #require(FileManager.default.contents(atPath: sandbox.path("high/big.webp")))
            #expect(highData.count > data.count, "quality changes the size")
            #expect(origin.requestCount("/big.png") == 1)
        }
    }

    @Test("fetch --format writes every format the coder writes, named by extension or media type; one it cannot write is refused naming those it can")
    func fetchEveryWritableFormat() async throws {
        try await withCLI { origin, sandbox in
            origin.register("/p.png", .image(try TestImages.encode(try TestImages.quadrants(width: 40, height: 30), as: .png)))
            let url = origin.url("/p.png").absoluteString
            for (name, format) in [("bmp", ImageFormat.bmp), ("ico", .ico), ("tif", .tiff), ("image/jpeg", .jpeg), ("gif", .gif)] {
                let run = try await sandbox.run(["fetch", url, "--format", name, "-o", "out-\(format.rawValue)", "--json"])
                #expect(run.status == 0, "\(name): \(run.stderr)")
                #expect(try run.jsonLines().first?["format"] as? String == format.rawValue, "\(name)")
            }
            let refused = try await sandbox.run(["fetch", url, "--format", "svg"])
            #expect(refused.status != 0 && refused.stderr.contains("bmp") && refused.stderr.contains("tiff"), "\(refused.stderr)")
        }
    }

    @Test("fetch --resize fit|fill:WxH resizes through the manager's transformer")
    func fetchResize() async throws {
        try await withCLI { origin, sandbox in
            origin.register("/wide.png", .image(try TestImages.encode(try TestImages.quadrants(width: 80, height: 40), as: .png)))
            let url = origin.url("/wide.png").absoluteString
            let fit = try await sandbox.run(["fetch", url, "--resize", "fit:20x20", "-o", "fit", "--json"])
            #expect(fit.status == 0, "\(fit.stderr)")
            let fitRecord = try #require(try fit.jsonLines().first)
            #expect([fitRecord["width"], fitRecord["height"]].map { $0 as? Int } == [20, 10])
            #expect(fitRecord["format"] as? String == "png")
            let fill = try await sandbox.run(["fetch", url, "--resize", "fill:20x20", "--format", "jpeg", "-o", "fill", "--json"])
            let fillRecord = try #require(try fill.jsonLines().first)
            #expect([fillRecord["width"], fillRecord["height"]].map { $0 as? Int } == [20, 20])
            #expect(fillRecord["cacheType"] as? String == "disk", "made from the original on disk, without a download")
            let data = try #require(FileManager.default.contents(atPath: sandbox.path("fill/wide.jpg")))
            #expect(ImageFormat(data: data) == .jpeg)
            #expect(origin.requestCount("/wide.png") == 1)
            let bad = try await sandbox.run(["fetch", url, "--resize", "stretch:20x20"])
            #expect(bad.status == 64 && bad.stderrLines.count == 1)
            #expect(bad.stderr.contains("--resize") && bad.stderr.contains("fit, fill"))
        }
    }

    @Test("fetch --no-cache always downloads and stores nothing; -o - writes the bytes to standard output")
    func fetchNoCacheAndStdout() async throws {
        try await withCLI { origin, sandbox in
            origin.register("/a.png", .image(Self.png))
            let url = origin.url("/a.png").absoluteString
            for _ in 0..<2 {
                let result = try await sandbox.run(["fetch", url, "--no-cache", "-o", "-"])
                #expect(result.status == 0)
                #expect(result.stdoutData == Self.png)
                #expect(result.stderrLines.count == 1 && result.stderrLines[0].hasPrefix(url), "the line goes to standard error")
            }
            #expect(origin.requestCount("/a.png") == 2)
            #expect(sandbox.cacheFiles.isEmpty)
        }
    }

    @Test("fetch --refresh revalidates with the stored ETag")
    func fetchRefresh() async throws {
        try await withCLI { origin, sandbox in
            origin.register("/e.png") { request in
                request.header("If-None-Match") == "\"v1\"" ? .notModified() : .image(Self.png).withHeader("ETag", "\"v1\"")
            }
            let url = origin.url("/e.png").absoluteString
            _ = try await sandbox.run(["fetch", url, "-o", "out"])
            let refreshed = try await sandbox.run(["fetch", url, "--refresh", "-o", "out", "--json"])
            #expect(refreshed.status == 0)
            #expect(try refreshed.jsonLines().first?["cacheType"] as? String == "disk")
            #expect(origin.requests("/e.png").map { $0.header("If-None-Match") } == [nil, "\"v1\""])
        }
    }

    @Test("failed images: one line each naming the URL and the reason, exit status 1, the others still written")
    func fetchFailures() async throws {
        try await withCLI { origin, sandbox in
            origin.register("/a.png", .image(Self.png))
            origin.register("/page.html", .html("<!doctype html><html><body>hello</body></html>"))
            let urls = [
                origin.url("/a.png").absoluteString,
                "http://127.0.0.1:1/unreachable.png",
                origin.url("/page.html").absoluteString,
                origin.url("/missing.png").absoluteString,
            ]
            let result = try await sandbox.run(["fetch"] + urls + ["--json"])
            #expect(result.status == 1)
            #expect(result.stderrLines.count == 3, "\(result.stderr)")
            #expect(result.stderrLines[0].hasPrefix("webimage: http://127.0.0.1:1/unreachable.png: network error"))
            #expect(result.stderrLines[1].hasPrefix("webimage: \(urls[2]): bad image data") && result.stderrLines[1].contains("HTML"))
            #expect(result.stderrLines[2] == "webimage: \(urls[3]): the server answered HTTP 404, which is not an acceptable status code")
            let records = try result.jsonLines()
            #expect(records.map { $0["ok"] as? Bool } == [true, false, false, false])
            #expect(records.map { $0["url"] as? String } == urls, "in the order given")
            #expect(records[1]["error"] as? String != nil)
            #expect(FileManager.default.fileExists(atPath: sandbox.path("a.png")))
        }
    }

    @Test("HT2 fetch succeeds through one 503 with Retry-After: 1, retried after it")
    func HT2_fetchRetriesThrough503WithRetryAfter() async throws {
        try await withCLI { origin, sandbox in
            origin.registerFailing("/busy.png", times: 1, with: .status(503, headers: [("Retry-After", "1")]), then: .image(Self.png))
            let result = try await sandbox.run(["fetch", origin.url("/busy.png").absoluteString, "--json"])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderr.isEmpty)
            let record = try #require(try result.jsonLines().first)
            #expect(record["ok"] as? Bool == true)
            #expect(origin.requestCount("/busy.png") == 2)
            #expect(FileManager.default.contents(atPath: sandbox.path("busy.png")) == Self.png)
        }
    }

    @Test("HT1 fetch serves a source within its max-age from the cache; past it, one conditional request, and a 304 keeps the cached bytes")
    func HT1_fetchFollowsMaxAge() async throws {
        try await withCLI { origin, sandbox in
            for (path, maxAge) in [("/kept.png", 3600), ("/brief.png", 1)] {
                origin.register(path) { request in
                    if request.header("if-none-match") == "\"a\"" { return .notModified(headers: [("ETag", "\"a\"")]) }
                    return .image(Self.png, headers: [("ETag", "\"a\""), ("Cache-Control", "max-age=\(maxAge)")])
                }
            }
            func fetch(_ path: String) async throws -> String? {
                let result = try await sandbox.run(["fetch", origin.url(path).absoluteString, "--json"])
                #expect(result.status == 0, "\(result.stderr)")
                return try result.jsonLines().first?["cacheType"] as? String
            }
            #expect(try await fetch("/kept.png") == "none")
            #expect(try await fetch("/kept.png") == "disk")
            #expect(origin.requestCount("/kept.png") == 1, "fresh: no request")

            #expect(try await fetch("/brief.png") == "none")
            // The CLI judges freshness by the system's clock: the entry is let go stale.
            try await Task.sleep(for: .seconds(2))
            #expect(try await fetch("/brief.png") == "disk")
            #expect(origin.requestCount("/brief.png") == 2)
            #expect(origin.lastRequest("/brief.png")?.header("if-none-match") == "\"a\"")
        }
    }

    @Test("a permanent failure is refused in the next run without a request, unless --retry-failed")
    func fetchRetryFailed() async throws {
        try await withCLI { origin, sandbox in
            let url = origin.url("/later.png").absoluteString
            #expect(try await sandbox.run(["fetch", url]).status == 1)
            let refused = try await sandbox.run(["fetch", url])
            #expect(refused.status == 1)
            #expect(refused.stderrLines.count == 1)
            #expect(refused.stderr.contains("HTTP 404") && refused.stderr.contains("--retry-failed"))
            #expect(origin.requestCount("/later.png") == 1)
            origin.register("/later.png", .image(Self.png))
            let retried = try await sandbox.run(["fetch", url, "--retry-failed"])
            #expect(retried.status == 0)
            #expect(origin.requestCount("/later.png") == 2)
            #expect(try await sandbox.run(["fetch", url]).status == 0, "a success unblocks the URL")
        }
    }

    @Test("fetch --alternative: a URL that fails for good is fetched from its alternative, written under its own name and cached under it, so the next run is a disk hit")
    func fetchAlternative() async throws {
        try await withCLI { origin, sandbox in
            origin.register("/mirror.png", .image(Self.png))
            let (url, mirror) = (origin.url("/a.png").absoluteString, origin.url("/mirror.png").absoluteString)
            let first = try await sandbox.run(["fetch", url, "--alternative", origin.url("/gone.png").absoluteString, "--alternative", mirror, "-o", "out", "--json"])
            #expect(first.status == 0, "\(first.stderr)")
            let record = try #require(try first.jsonLines().first)
            #expect(record["url"] as? String == url)
            #expect(record["source"] as? String == mirror)
            #expect(record["cacheType"] as? String == "none")
            #expect(record["output"] as? String == "out/a.png")
            #expect(FileManager.default.contents(atPath: sandbox.path("out/a.png")) == Self.png)
            #expect(origin.requestCount("/a.png") == 1 && origin.requestCount("/gone.png") == 1 && origin.requestCount("/mirror.png") == 1)

            let text = try await sandbox.run(["fetch", url])
            #expect(text.status == 0, "cached under the URL, which is not blocked: \(text.stderr)")
            #expect(text.stdoutLines.first?.components(separatedBy: "  ")[1] == "disk")
            #expect(origin.totalRequestCount == 3, "no new request")
        }
    }

    @Test("fetch --alternative: when every source fails, the line names the URL's reason and each alternative's, and the next run asks none of them")
    func fetchAlternativesAllFail() async throws {
        try await withCLI { origin, sandbox in
            origin.register("/gone.png", .status(410))
            let (url, gone) = (origin.url("/a.png").absoluteString, origin.url("/gone.png").absoluteString)
            let failed = try await sandbox.run(["fetch", url, "--alternative", gone])
            #expect(failed.status == 1)
            #expect(failed.stderrLines.count == 1)
            #expect(failed.stderr.contains("HTTP 404") && failed.stderr.contains("alternative \(gone)") && failed.stderr.contains("HTTP 410"), "\(failed.stderr)")
            let again = try await sandbox.run(["fetch", url, "--alternative", gone])
            #expect(again.status == 1)
            #expect(again.stderr.contains("--retry-failed") || again.stderr.contains("blocked"), "\(again.stderr)")
            #expect(origin.totalRequestCount == 2, "both were blocked by the first run")
        }
    }

    @Test("bad arguments: one line naming the argument and the fix, exit status 64")
    func fetchBadArguments() async throws {
        try await withCLI { origin, sandbox in
            let url = origin.url("/a.png").absoluteString
            let cases: [([String], [String])] = [
                (["fetch", url, "--format", "svg"], ["--format", "'svg'", "jpeg", "png", "webp", "avif", "gif", "bmp", "tiff"]),
                (["fetch", url, "--thumbnail", "200"], ["--thumbnail", "200x150"]),
                (["fetch", url, "--quality", "0"], ["--quality", "1 to 100"]),
                (["fetch", "not a url"], ["'not a url'", "http(s)://"]),
                (["fetch", url, url, "-o", "-"], ["'-o -'", "one URL"]),
                (["fetch", url, "--refresh", "--no-cache"], ["--refresh", "--no-cache"]),
                (["fetch", url, url, "--alternative", url], ["--alternative", "one URL"]),
                (["fetch", url, "--alternative", "not a url"], ["'not a url'", "http(s)://"]),
                (["fetch"], ["url"]),
            ]
            for (arguments, expected) in cases {
                let result = try await sandbox.run(arguments)
                #expect(result.status == 64, "\(arguments)")
                #expect(result.stdout.isEmpty)
                #expect(result.stderrLines.count == 1, "\(arguments): \(result.stderr)")
                for word in expected { #expect(result.stderr.contains(word), "\(arguments): \(result.stderr)") }
                #expect(result.stderr.contains("webimage fetch --help"))
            }
            #expect(origin.totalRequestCount == 0)
        }
    }
}

@Suite("webimage fetch network flags")
struct CLIFetchNetworkTests {
    @Test("fetch --proxy downloads through the proxy's CONNECT tunnel; --no-proxy sends a listed host direct")
    func fetchThroughProxy() async throws {
        let tinyproxy = try await TinyproxyProcess.start()
        defer { tinyproxy.stop() }
        try await withCLI { origin, sandbox in
            origin.register("/a.png", .image(CLIFetchTests.png))
            let url = origin.url("/a.png").absoluteString
            let proxy = "http://127.0.0.1:\(tinyproxy.port)"
            let proxied = try await sandbox.run(["fetch", url, "-o", "out", "--no-cache", "--proxy", proxy])
            #expect(proxied.status == 0, "\(proxied.stderr)")
            #expect(tinyproxy.connectTargets == ["127.0.0.1:\(origin.port)"], "\(tinyproxy.log)")
            let direct = try await sandbox.run(["fetch", url, "-o", "direct", "--no-cache", "--proxy", proxy, "--no-proxy", "127.0.0.1"])
            #expect(direct.status == 0, "\(direct.stderr)")
            #expect(tinyproxy.connectTargets.count == 1, "\(tinyproxy.log)")
            #expect(origin.requestCount("/a.png") == 2)
        }
    }

    @Test("fetch --proxy with an https proxy fails at once naming the problem")
    func unusableProxy() async throws {
        let sandbox = try CLISandbox()
        defer { sandbox.remove() }
        let result = try await sandbox.run(["fetch", "http://127.0.0.1:9/a.png", "--proxy", "https://proxy.example:443"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("TLS to the proxy itself is not supported"), "\(result.stderr)")
    }
}
