import Foundation
import Testing
import WebImage
import WebImageTestSupport

@Suite("webimage prefetch, info, cache, refresh")
struct CLICommandsTests {
    static let png: Data = try! TestImages.encode(try! TestImages.quadrants(width: 40, height: 30), as: .png)

    // Prefetching through the tool
    @Test("prefetch reads URLs from a file or standard input, reports each failure and a summary")
    func prefetch() async throws {
        try await withCLI { origin, sandbox in
            let good = (0..<5).map { index -> String in
                origin.register("/p\(index).png", .image(Self.png))
                return origin.url("/p\(index).png").absoluteString
            }
            let missing = origin.url("/gone.png").absoluteString
            let list = "# images\n" + good.joined(separator: "\n") + "\n\n" + missing + "\n"
            try list.write(toFile: sandbox.path("urls.txt"), atomically: true, encoding: .utf8)
            let result = try await sandbox.run(["prefetch", "urls.txt", "--concurrency", "2", "--json"])
            #expect(result.status == 1)
            #expect(result.stderrLines == ["webimage: \(missing): the server answered HTTP 404, which is not an acceptable status code"])
            let records = try result.jsonLines()
            #expect(records.count == 7)
            let images = records.filter { $0["type"] as? String == "image" }
            #expect(Set(images.compactMap { $0["url"] as? String }) == Set(good + [missing]))
            #expect(images.filter { $0["ok"] as? Bool == true }.allSatisfy { $0["cacheType"] as? String == "none" })
            let summary = try #require(records.last)
            #expect(summary["type"] as? String == "summary")
            #expect(summary["finished"] as? Int == 6)
            #expect(summary["skipped"] as? Int == 1)
            #expect(summary["total"] as? Int == 6)
            #expect(sandbox.cacheFiles.count == 5)
            #expect(origin.maxConcurrentRequests <= 2)

            // From standard input, all cached now: text summary, exit status 0.
            let again = try await sandbox.run(["prefetch"], stdin: Data(good.joined(separator: "\n").utf8))
            #expect(again.status == 0, "\(again.stderr)")
            #expect(again.stdoutLines == ["prefetched 5 URLs: 5 cached, 0 skipped (failed)"])
            #expect(good.allSatisfy { origin.requestCount(URL(string: $0)!.path) == 1 })
        }
    }

    @Test("prefetch: a line that is not a URL and a missing list file are named")
    func prefetchBadInput() async throws {
        try await withCLI { origin, sandbox in
            let missingFile = try await sandbox.run(["prefetch", "nope.txt"])
            #expect(missingFile.status == 64)
            #expect(missingFile.stderrLines.count == 1 && missingFile.stderr.contains("'nope.txt'"))
            origin.register("/a.png", .image(Self.png))
            let result = try await sandbox.run(["prefetch", "-"], stdin: Data("\(origin.url("/a.png"))\nhello world\n".utf8))
            #expect(result.status == 1)
            #expect(result.stderrLines == ["webimage: standard input, line 2: 'hello world' is not a URL the tool can load: pass an http(s)://, file:// or data: URL"])
            #expect(result.stdoutLines == ["prefetched 2 URLs: 1 cached, 1 skipped (failed)"])
        }
    }

    @Test("info on a file and on a URL, before and after it is cached")
    func info() async throws {
        try await withCLI { origin, sandbox in
            let jpeg = try TestImages.jpeg(upright: try TestImages.quadrants(width: 30, height: 20), orientation: 6)
            try jpeg.write(to: URL(fileURLWithPath: sandbox.path("photo.jpg")))
            let file = try await sandbox.run(["info", "photo.jpg", "--json"])
            #expect(file.status == 0, "\(file.stderr)")
            let record = try #require(try file.jsonLines().first)
            #expect(record["format"] as? String == "jpeg")
            #expect(record["width"] as? Int == 30)
            #expect(record["height"] as? Int == 20)
            #expect(record["frames"] as? Int == 1)
            #expect(record["alpha"] as? Bool == false)
            #expect(record["orientation"] as? Int == 6)
            #expect(record["bytes"] as? Int == jpeg.count)
            #expect(record["cached"] == nil)
            #expect((record["dominantColor"] as? String)?.hasPrefix("#") == true)
            let hash = try ThumbHash(base64: try #require(record["thumbHash"] as? String))
            #expect(abs(hash.approximateAspectRatio - 1.5) < 0.3, "the upright image's")

            origin.register("/a.png", .image(Self.png))
            let url = origin.url("/a.png").absoluteString
            let before = try #require(try await sandbox.run(["info", url, "--json"]).jsonLines().first)
            #expect(before["cached"] as? String == "none")
            #expect(before["cachePath"] == nil)
            #expect(sandbox.cacheFiles.isEmpty, "info does not store")
            _ = try await sandbox.run(["fetch", url, "-o", "out"])
            let after = try await sandbox.run(["info", url])
            #expect(after.status == 0)
            #expect(after.stdoutLines.contains("cached: disk"))
            #expect(after.stdoutLines.contains("dimensions: 40x30"))
            #expect(after.stdoutLines.contains { $0.hasPrefix("thumbhash: ") } && after.stdoutLines.contains { $0.hasPrefix("dominant colour: #") })
            let pathLine = try #require(after.stdoutLines.first { $0.hasPrefix("cache path: ") })
            #expect(FileManager.default.fileExists(atPath: String(pathLine.dropFirst("cache path: ".count))))
            #expect(origin.requestCount("/a.png") == 2, "one for the uncached info, one for the fetch")
        }
    }

    @Test("info: a missing file and a non-image give one clear line and a non-zero exit")
    func infoBadInput() async throws {
        try await withCLI { origin, sandbox in
            let missing = try await sandbox.run(["info", "nothing.png"])
            #expect(missing.status == 64)
            #expect(missing.stderrLines == ["webimage: error: no such file 'nothing.png': pass the path of an image file or an http(s) URL (see 'webimage info --help')"])
            try Data("just text".utf8).write(to: URL(fileURLWithPath: sandbox.path("notes.txt")))
            let text = try await sandbox.run(["info", "notes.txt"])
            #expect(text.status == 1)
            #expect(text.stderrLines.count == 1 && text.stderr.hasPrefix("webimage: notes.txt: bad image data"))
            let unreachable = try await sandbox.run(["info", "http://127.0.0.1:1/a.png"])
            #expect(unreachable.status == 1)
            #expect(unreachable.stderrLines.count == 1 && unreachable.stderr.contains("network error"))
        }
    }

    @Test("cache path, info, clean and clear")
    func cache() async throws {
        try await withCLI { origin, sandbox in
            let path = try await sandbox.run(["cache", "path"])
            #expect(path.stdoutLines == [sandbox.cacheDirectory])
            let custom = try await sandbox.run(["cache", "path", "--cache-dir", "/tmp/elsewhere"])
            #expect(custom.stdoutLines == ["/tmp/elsewhere/default"])
            let empty = try #require(try await sandbox.run(["cache", "info", "--json"]).jsonLines().first)
            #expect(empty["count"] as? Int == 0)
            #expect(empty["oldest"] == nil)

            for name in ["a", "b"] { origin.register("/\(name).png", .image(Self.png)) }
            _ = try await sandbox.run(["fetch", origin.url("/a.png").absoluteString, origin.url("/b.png").absoluteString, "-o", "out"])
            let info = try await sandbox.run(["cache", "info", "--json", "--max-size", "10M"])
            let record = try #require(try info.jsonLines().first)
            let sizes = try sandbox.cacheFiles.map { try #require(try FileManager.default.attributesOfItem(atPath: sandbox.cacheDirectory + "/" + $0)[.size] as? Int) }
            #expect(record["directory"] as? String == sandbox.cacheDirectory)
            #expect(record["count"] as? Int == 2)
            #expect(record["bytes"] as? Int == sizes.reduce(0, +))
            #expect(record["oldest"] is String && record["newest"] is String)
            #expect((record["maxAgeSeconds"] as? NSNumber)?.intValue == 7 * 86400)
            #expect(record["maxSizeBytes"] as? Int == 10_000_000)
            let text = try await sandbox.run(["cache", "info"])
            #expect(text.stdoutLines.contains("entries: 2"))
            #expect(text.stdoutLines.contains("max age: 7d"))

            let kept = try #require(try await sandbox.run(["cache", "clean", "--json"]).jsonLines().first)
            #expect(kept["expired"] as? Int == 0 && kept["remainingCount"] as? Int == 2)
            let trimmed = try #require(try await sandbox.run(["cache", "clean", "--max-size", "\(sizes.reduce(0, +) - 1)", "--json"]).jsonLines().first)
            #expect(trimmed["trimmed"] as? Int == 2, "over the limit: trimmed to under half of it")
            #expect(sandbox.cacheFiles.isEmpty)

            _ = try await sandbox.run(["fetch", origin.url("/a.png").absoluteString, "-o", "out"])
            let cleared = try await sandbox.run(["cache", "clear"])
            #expect(cleared.status == 0)
            #expect(cleared.stdoutLines.first?.hasPrefix("removed 1 entries") == true)
            #expect(sandbox.cacheFiles.isEmpty)
            let badAge = try await sandbox.run(["cache", "clean", "--max-age", "soon"])
            #expect(badAge.status == 64 && badAge.stderr.contains("--max-age") && badAge.stderr.contains("7d"))
        }
    }

    // Revalidation through the tool
    @Test("HT1 refresh leaves an entry fresh by its max-age alone, and revalidates it with --force")
    func refreshSkipsFresh() async throws {
        try await withCLI { origin, sandbox in
            origin.register("/fresh.png") { request in
                request.header("If-None-Match") == "\"v1\"" ? .notModified()
                    : .image(Self.png, headers: [("ETag", "\"v1\""), ("Cache-Control", "max-age=3600")])
            }
            let url = origin.url("/fresh.png").absoluteString
            #expect(try await sandbox.run(["fetch", url, "-o", "out"]).status == 0)
            let skipped = try #require(try await sandbox.run(["refresh", "--json"]).jsonLines().last)
            #expect([skipped["fresh"], skipped["noData"]].map { $0 as? Int } == [1, 0])
            #expect(origin.requestCount("/fresh.png") == 1)
            let forced = try #require(try await sandbox.run(["refresh", "--force", "--json"]).jsonLines().last)
            #expect([forced["fresh"], forced["noData"]].map { $0 as? Int } == [0, 1])
            #expect(origin.requestCount("/fresh.png") == 2)
        }
    }

    @Test("refresh revalidates with stored validators: no data, new data, failed")
    func refresh() async throws {
        try await withCLI { origin, sandbox in
            let other = try TestImages.encode(try TestImages.quadrants(width: 20, height: 10), as: .png)
            origin.register("/etag.png") { request in
                request.header("If-None-Match") == "\"v1\"" ? .notModified() : .image(Self.png).withHeader("ETag", "\"v1\"")
            }
            origin.register("/changes.png") { request in
                .image(request.ordinal == 1 ? Self.png : other).withHeader("Last-Modified", request.ordinal == 1 ? "Mon, 02 Nov 2026 10:00:00 GMT" : "Tue, 03 Nov 2026 10:00:00 GMT")
            }
            origin.register("/same.png", .image(Self.png))
            origin.register("/broken.png") { request in request.ordinal == 1 ? .image(Self.png) : .status(500) }
            let paths = ["/etag.png", "/changes.png", "/same.png", "/broken.png"]
            let urls = paths.map { origin.url($0).absoluteString }
            let fetched = try await sandbox.run(["fetch"] + urls + ["-o", "out"])
            #expect(fetched.status == 0, "\(fetched.stderr)")
            // A thumbnail variant records no source URL: skipped.
            _ = try await sandbox.run(["fetch", urls[0], "--thumbnail", "10x10", "-o", "thumbs"])

            let nothingDue = try await sandbox.run(["refresh", "--older-than", "1h", "--json"])
            #expect(nothingDue.status == 0)
            let idle = try #require(try nothingDue.jsonLines().last)
            #expect([idle["newData"], idle["noData"], idle["failed"]].map { $0 as? Int } == [0, 0, 0])
            #expect(paths.allSatisfy { origin.requestCount($0) == 1 })

            let result = try await sandbox.run(["refresh", "--json"])
            #expect(result.status == 1)
            let records = try result.jsonLines()
            let outcomes = Dictionary(uniqueKeysWithValues: records.dropLast().map { ($0["url"] as? String ?? "", $0["result"] as? String ?? "") })
            #expect(outcomes == [urls[0]: "noData", urls[1]: "newData", urls[2]: "noData", urls[3]: "failed"])
            let summary = try #require(records.last)
            #expect(summary["type"] as? String == "summary")
            #expect([summary["newData"], summary["noData"], summary["failed"], summary["skipped"]].map { $0 as? Int } == [1, 2, 1, 1])
            #expect(result.stderrLines == ["webimage: \(urls[3]): the server answered HTTP 500, which is not an acceptable status code"])
            #expect(origin.lastRequest("/etag.png")?.header("If-None-Match") == "\"v1\"")
            #expect(origin.lastRequest("/changes.png")?.header("If-Modified-Since") == "Mon, 02 Nov 2026 10:00:00 GMT")
            // The cache now holds the new bytes.
            let info = try #require(try await sandbox.run(["info", urls[1], "--json"]).jsonLines().first)
            #expect(info["width"] as? Int == 20)

            let text = try await sandbox.run(["refresh", "--older-than", "1h"])
            #expect(text.stdoutLines.last == "refreshed 0 entries: 0 new data, 0 no data, 0 failed; 0 still fresh; 1 skipped (no source URL)")
        }
    }

    @Test("serve: settings the server cannot be built from are one line naming the first of them, before anything is logged, exit status 64")
    func serveRefusesUnusableSettings() async throws {
        try await withCLI { _, sandbox in
            let key = try await sandbox.run(["serve", "--port", "0", "--key", "zz", "--salt", "73616c74", "--local-filesystem-root", "/nonexistent/webimage-serve"])
            #expect(key.status == 64)
            #expect(key.stderrLines.count == 1 && key.stderr.contains("--key"), "\(key.stderr)")
            #expect(key.stdout.isEmpty)
            let root = try await sandbox.run(["serve", "--port", "0", "--local-filesystem-root", "/nonexistent/webimage-serve"])
            #expect(root.status == 64)
            #expect(root.stderrLines.count == 1 && root.stderr.contains("/nonexistent/webimage-serve"), "\(root.stderr)")
        }
    }

    @Test("health: exit 0 when the proxy's /health answers 200, 1 with the reason otherwise; a server URL gets /health")
    func health() async throws {
        try await withCLI { origin, sandbox in
            origin.register("/health", .text("ok\n"))
            origin.register("/broken/health", .status(503))
            let server = origin.url("/").absoluteString
            let healthy = try await sandbox.run(["health", server])
            #expect(healthy.status == 0, "\(healthy.stderr)")
            #expect(healthy.stdoutLines == ["\(server.dropLast())/health answered 200: ok"])
            let broken = try await sandbox.run(["health", origin.url("/broken/health").absoluteString])
            #expect(broken.status == 1)
            #expect(broken.stderrLines.count == 1 && broken.stderr.contains("answered 503"), "\(broken.stderr)")
            // Without a URL: the address serve would listen on, here PORT's.
            let port = origin.url("/").port ?? 0
            let fromEnvironment = try await sandbox.run(["health"], environmentChanges: ["PORT": String(port)])
            #expect(fromEnvironment.status == 0, "\(fromEnvironment.stderr)")
            let closed = try freeLoopbackPort()
            let nothing = try await sandbox.run(["health", "--timeout", "10", "http://127.0.0.1:\(closed)"])
            #expect(nothing.status == 1 && nothing.stderrLines.count == 1 && nothing.stderr.contains("no answer"), "\(nothing.stderr)")
            let bad = try await sandbox.run(["health", "127.0.0.1:80"])
            #expect(bad.status == 64)
        }
    }
}
