import Foundation
import NIOHTTP1
import Testing
@testable import WebImage
import WebImageTestSupport

/// Resuming a body whose connection dropped (``ResumePolicy``) against a source that serves
/// byte ranges: which drops ask for the rest with `Range` and `If-Range`, what each answer
/// does, and what the finished download holds. Every assertion counts requests, range
/// headers, bytes and events; none measures time (the waits are on an ``InstantClock``).
@Suite("Download resumes")
struct DownloadResumeTests {
    /// Bytes that differ from one offset to the next, so that a body put together in the
    /// wrong order cannot pass for the original.
    static func body(_ count: Int, seed: UInt8 = 0) -> Data {
        Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ ($0 >> 8) &+ Int(seed)) })
    }

    static let size = 96 * 1024
    static let cut = 40_000
    static let original = body(size)
    static let strongTag = [("Accept-Ranges", "bytes"), ("ETag", "\"v1\"")]
    static let modified = "Tue, 14 Nov 2023 22:13:20 GMT"
    static let lastModified = [("Accept-Ranges", "bytes"), ("Last-Modified", modified), ("Date", "Tue, 14 Nov 2023 22:14:20 GMT")]

    /// Runs `body` with an origin and a downloader that resumes bodies of 16 KiB or more,
    /// waits on an instant clock, reports every progress, and records its events.
    static func withResumingDownloader(
        configure: @escaping (inout DownloaderConfig) -> Void = { _ in },
        _ body: (TestOrigin, ImageDownloader, Recorder<ImageEvent>) async throws -> Void
    ) async throws {
        try await withOriginAndDownloader(configure: {
            $0.retryClock = InstantClock()
            $0.resumePolicy = ResumePolicy(threshold: 16 * 1024)
            $0.minimumProgressInterval = .zero
            configure(&$0)
        }) { origin, downloader in
            let events = Recorder<ImageEvent>()
            downloader.events.observe { events.append($0) }
            try await body(origin, downloader, events)
        }
    }

    /// Loads `url`, telling `source` of each progress report so that its held cuts close once
    /// the client has every byte before them; returns the outcome and the progress reports.
    static func load(
        _ url: URL, from source: TestOriginRangedSource, with downloader: ImageDownloader, options: DownloadOptions = DownloadOptions()
    ) async -> (Result<DownloadResponse, ImageError>, [DownloadProgress]) {
        let progress = Recorder<DownloadProgress>()
        do throws(ImageError) {
            let response = try await downloader.load(url, options: options) { report in
                progress.append(report)
                source.bodyBytesSeen(report.receivedBytes)
            }
            return (.success(response), progress.values)
        } catch {
            return (.failure(error), progress.values)
        }
    }

    static func resumes(_ events: Recorder<ImageEvent>) -> [ImageEvent] {
        events.values.filter { if case .resuming = $0 { true } else { false } }
    }

    static func retries(_ events: Recorder<ImageEvent>) -> Int {
        events.values.count { if case .retrying = $0 { true } else { false } }
    }

    static func isMonotonic(_ values: [Int]) -> Bool {
        zip(values, values.dropFirst()).allSatisfy { $0 <= $1 }
    }

    // MARK: Resuming

    @Test("resume: a drop after a 200 with a strong ETag asks for the rest with Range and If-Range, and the result is the whole body")
    func resume_strongETag() async throws {
        try await Self.withResumingDownloader { origin, downloader, events in
            let source = TestOriginRangedSource([.init(body: Self.original, headers: Self.strongTag)], cuts: [Self.cut], holdsCuts: true)
            origin.register("/big.bin", source)
            let url = origin.url("/big.bin")
            let response = try await Self.load(url, from: source, with: downloader).0.get()
            #expect(response.data == Self.original)
            #expect(source.requestCount == 2)
            #expect(source.rangeHeaders == [nil, "bytes=\(Self.cut)-"])
            #expect(source.ifRangeHeaders == [nil, "\"v1\""])
            // The head is the first 200's, declaring the whole body.
            #expect(response.head.statusCode == 200)
            #expect(response.head.headers.first(name: "Content-Length") == String(Self.size))
            #expect(response.head.headers.first(name: "ETag") == "\"v1\"")
            #expect(response.head.headers.first(name: "Content-Range") == nil)
            #expect(Self.resumes(events) == [.resuming(url: url, fromByte: Self.cut)])
            let names = events.values.map(ImageDownloaderTests.name)
            #expect(names == ["started", "response", "retrying", "resuming", "response", "stopped", "finished"])
            #expect(events.values.last == .finished(url: url, bytes: Self.size))
        }
    }

    @Test("resume: a 200 with Last-Modified a second or more before its Date is resumed with If-Range: <date>")
    func resume_lastModified() async throws {
        try await Self.withResumingDownloader { origin, downloader, events in
            let source = TestOriginRangedSource([.init(body: Self.original, headers: Self.lastModified)], cuts: [Self.cut], holdsCuts: true)
            origin.register("/big.bin", source)
            let response = try await Self.load(origin.url("/big.bin"), from: source, with: downloader).0.get()
            #expect(response.data == Self.original)
            #expect(source.rangeHeaders == [nil, "bytes=\(Self.cut)-"])
            #expect(source.ifRangeHeaders == [nil, Self.modified])
            #expect(Self.resumes(events).count == 1)
        }
    }

    @Test("resume: a connection reset in the middle of the body is resumed like one closed")
    func resume_afterReset() async throws {
        try await Self.withResumingDownloader { origin, downloader, events in
            let source = TestOriginRangedSource(
                [.init(body: Self.original, headers: Self.strongTag)], cuts: [Self.cut], holdsCuts: true, resetsCuts: true
            )
            origin.register("/big.bin", source)
            let response = try await Self.load(origin.url("/big.bin"), from: source, with: downloader).0.get()
            #expect(response.data == Self.original)
            #expect(source.rangeHeaders == [nil, "bytes=\(Self.cut)-"])
            #expect(Self.resumes(events).count == 1)
        }
    }

    @Test("resume: a body that drops twice is resumed twice, each time from the bytes held")
    func resume_twice() async throws {
        try await Self.withResumingDownloader { origin, downloader, events in
            let source = TestOriginRangedSource([.init(body: Self.original, headers: Self.strongTag)], cuts: [30_000, 20_000], holdsCuts: true)
            origin.register("/big.bin", source)
            let url = origin.url("/big.bin")
            let response = try await Self.load(url, from: source, with: downloader).0.get()
            #expect(response.data == Self.original)
            #expect(source.rangeHeaders == [nil, "bytes=30000-", "bytes=50000-"])
            #expect(Self.resumes(events) == [.resuming(url: url, fromByte: 30_000), .resuming(url: url, fromByte: 50_000)])
            #expect(Self.retries(events) == 2)
        }
    }

    @Test("resume: after body bytes reached a progress caller, progress goes on from the bytes held and never back")
    func resume_afterBytesReachedAProgressCaller() async throws {
        try await Self.withResumingDownloader { origin, downloader, _ in
            let source = TestOriginRangedSource([.init(body: Self.original, headers: Self.strongTag)], cuts: [Self.cut], holdsCuts: true)
            origin.register("/big.bin", source)
            var options = DownloadOptions()
            options.wantsPartialData = true
            let (result, progress) = await Self.load(origin.url("/big.bin"), from: source, with: downloader, options: options)
            let response = try result.get()
            #expect(response.data == Self.original)
            #expect(source.rangeHeaders == [nil, "bytes=\(Self.cut)-"])
            let received = progress.map(\.receivedBytes)
            #expect(received.contains { $0 > 0 && $0 <= Self.cut })
            #expect(received.contains { $0 > Self.cut && $0 < Self.size })
            #expect(Self.isMonotonic(received))
            #expect(received.last == Self.size)
            #expect(progress.allSatisfy { $0.expectedBytes == Self.size })
            // Partial data is always a prefix of the body, across the resume too.
            #expect(progress.allSatisfy { report in
                report.partialData.map { Self.original.prefix($0.count) == $0 && $0.count == report.receivedBytes } ?? false
            })
        }
    }

    @Test("resume: the resumed request goes to the URL that answered after redirects, approved by the hop guard")
    func resume_afterRedirectGoesToTheFinalURL() async throws {
        let approved = Recorder<String>()
        try await Self.withResumingDownloader(configure: { config in
            config.hopGuard = { approved.append($0.path) }
        }) { origin, downloader, _ in
            let source = TestOriginRangedSource([.init(body: Self.original, headers: Self.strongTag)], cuts: [Self.cut], holdsCuts: true)
            origin.register("/start.bin", .redirect(to: "/final.bin"))
            origin.register("/final.bin", source)
            let response = try await Self.load(origin.url("/start.bin"), from: source, with: downloader).0.get()
            #expect(response.data == Self.original)
            #expect(response.head.url == origin.url("/final.bin"))
            #expect(origin.requestCount("/start.bin") == 1)
            #expect(source.rangeHeaders == [nil, "bytes=\(Self.cut)-"])
            #expect(approved.values == ["/start.bin", "/final.bin", "/final.bin"])
        }
    }

    @Test("resume: a body of unknown length (chunked) is resumed too, and the result declares its whole length")
    func resume_chunkedBody() async throws {
        try await Self.withResumingDownloader { origin, downloader, _ in
            let source = TestOriginRangedSource(
                [.init(body: Self.original, headers: Self.strongTag)], cuts: [Self.cut], chunked: true, holdsCuts: true
            )
            origin.register("/big.bin", source)
            let response = try await Self.load(origin.url("/big.bin"), from: source, with: downloader).0.get()
            #expect(response.data == Self.original)
            #expect(source.rangeHeaders == [nil, "bytes=\(Self.cut)-"])
            #expect(response.head.headers.first(name: "Content-Length") == String(Self.size))
            #expect(response.head.headers.first(name: "Transfer-Encoding") == nil)
        }
    }

    @Test("resume: the response modifier and the decryptor see the first 200 and the whole body, once each")
    func resume_modifierAndDecryptorRunOnce() async throws {
        let heads = Recorder<Int>()
        let decrypted = Recorder<Int>()
        try await Self.withResumingDownloader(configure: { config in
            config.responseModifier = { head in
                heads.append(head.statusCode)
                return head
            }
            config.decryptor = { data, head in
                decrypted.append(head.statusCode)
                return Data(data.reversed())
            }
        }) { origin, downloader, _ in
            let source = TestOriginRangedSource([.init(body: Self.original, headers: Self.strongTag)], cuts: [Self.cut])
            origin.register("/big.bin", source)
            let response = try await downloader.load(origin.url("/big.bin"))
            #expect(response.data == Data(Self.original.reversed()))
            #expect(source.requestCount == 2)
            #expect(heads.values == [200])
            #expect(decrypted.values == [200])
        }
    }

    // MARK: The headers read

    @Test("resume: Content-Range is read as one byte range with a length or '*', and nothing else")
    func resume_contentRangeParsing() {
        typealias Range = ContentRange
        #expect(Range("bytes 40000-98303/98304").map { [$0.first, $0.last, $0.length ?? -1] } == [40000, 98303, 98304])
        #expect(Range("Bytes 5-9/*").map { [$0.first, $0.last, $0.length ?? -1] } == [5, 9, -1])
        for invalid in ["bytes */98304", "bytes 9-5/10", "bytes 5-10/10", "items 0-1/2", "bytes 0-1", "bytes -1-2/3", "bytes 0-1/x", ""] {
            #expect(Range(invalid) == nil, "\(invalid)")
        }
    }

    @Test("resume: the validator is a strong ETag, else a Last-Modified a second before Date when there is no ETag at all")
    func resume_validatorChoice() {
        func validator(_ headers: HTTPHeaders) -> String? { HTTPTransfer.rangeValidator(in: headers)?.0 }
        let date = "Tue, 14 Nov 2023 22:14:20 GMT"
        #expect(validator(["ETag": "\"v1\"", "Last-Modified": Self.modified, "Date": date]) == "\"v1\"")
        #expect(validator(["ETag": "W/\"v1\"", "Last-Modified": Self.modified, "Date": date]) == nil)
        #expect(validator(["Last-Modified": Self.modified, "Date": date]) == Self.modified)
        #expect(validator(["Last-Modified": Self.modified]) == nil)
        #expect(validator(["Last-Modified": "yesterday", "Date": date]) == nil)
        #expect(HTTPTransfer.acceptsByteRanges(["Accept-Ranges": "none, Bytes"]))
        #expect(!HTTPTransfer.acceptsByteRanges(["Accept-Ranges": "none"]))
        #expect(!HTTPTransfer.acceptsByteRanges([:]))
    }

    // MARK: Starting over

    @Test("resume: without Accept-Ranges the retry starts over, without Range")
    func resume_noAcceptRangesStartsOver() async throws {
        try await Self.withResumingDownloader { origin, downloader, events in
            let source = TestOriginRangedSource([.init(body: Self.original, headers: [("ETag", "\"v1\"")])], cuts: [Self.cut])
            origin.register("/big.bin", source)
            let response = try await downloader.load(origin.url("/big.bin"))
            #expect(response.data == Self.original)
            #expect(source.rangeHeaders == [nil, nil])
            #expect(Self.resumes(events).isEmpty)
            #expect(Self.retries(events) == 1)
        }
    }

    @Test(
        "resume: a weak ETag is no validator for If-Range, and with one Last-Modified is not used either: the retry starts over",
        arguments: [
            [("Accept-Ranges", "bytes"), ("ETag", "W/\"v1\"")],
            [
                ("Accept-Ranges", "bytes"), ("ETag", "W/\"v1\""), ("Last-Modified", "Tue, 14 Nov 2023 22:13:20 GMT"),
                ("Date", "Tue, 14 Nov 2023 22:14:20 GMT"),
            ],
            // A date without a later Date, or within the second of it, is no strong validator.
            [("Accept-Ranges", "bytes"), ("Last-Modified", "Tue, 14 Nov 2023 22:13:20 GMT")],
            [("Accept-Ranges", "bytes"), ("Last-Modified", "Tue, 14 Nov 2023 22:13:20 GMT"), ("Date", "Tue, 14 Nov 2023 22:13:20 GMT")],
        ]
    )
    func resume_noStrongValidatorStartsOver(headers: [(String, String)]) async throws {
        try await Self.withResumingDownloader { origin, downloader, events in
            let source = TestOriginRangedSource([.init(body: Self.original, headers: headers)], cuts: [Self.cut])
            origin.register("/big.bin", source)
            let response = try await downloader.load(origin.url("/big.bin"))
            #expect(response.data == Self.original)
            #expect(source.rangeHeaders == [nil, nil])
            #expect(source.ifRangeHeaders == [nil, nil])
            #expect(Self.resumes(events).isEmpty)
        }
    }

    @Test("resume: a source changed since (If-Range no longer matches) answers 200, and its new body is the result, progress starting again")
    func resume_validatorChangedStartsOverWithTheNewBody() async throws {
        try await Self.withResumingDownloader { origin, downloader, _ in
            let changed = Self.body(Self.size + 1000, seed: 7)
            let source = TestOriginRangedSource(
                [
                    .init(body: Self.original, headers: Self.strongTag),
                    .init(body: changed, headers: [("Accept-Ranges", "bytes"), ("ETag", "\"v2\"")]),
                ],
                cuts: [Self.cut], holdsCuts: true
            )
            origin.register("/big.bin", source)
            let (result, progress) = await Self.load(origin.url("/big.bin"), from: source, with: downloader)
            let response = try result.get()
            #expect(response.data == changed)
            #expect(response.head.headers.first(name: "ETag") == "\"v2\"")
            #expect(response.head.headers.first(name: "Content-Length") == String(changed.count))
            #expect(source.rangeHeaders == [nil, "bytes=\(Self.cut)-"])
            #expect(source.ifRangeHeaders == [nil, "\"v1\""])
            // The one case where progress goes back: the new body counts from zero.
            let received = progress.map(\.receivedBytes)
            let restart = try #require(received.indices.dropFirst().first { received[$0] == 0 })
            #expect(Self.isMonotonic(Array(received[..<restart])) && Self.isMonotonic(Array(received[restart...])))
            #expect(received.last == changed.count)
        }
    }

    @Test(
        "resume: a 206 that does not continue the body, or a 416, drops the bytes held and the next retry starts over without Range",
        arguments: [TestOriginRangedSource.RangeAnswer.wrongStart(0), .wrongStart(40_001), .unsatisfiable]
    )
    func resume_refusedRangeStartsOver(answer: TestOriginRangedSource.RangeAnswer) async throws {
        try await Self.withResumingDownloader { origin, downloader, events in
            let source = TestOriginRangedSource(
                [.init(body: Self.original, headers: Self.strongTag)], cuts: [Self.cut], answer: answer, holdsCuts: true
            )
            origin.register("/big.bin", source)
            let url = origin.url("/big.bin")
            let (result, progress) = await Self.load(url, from: source, with: downloader)
            let response = try result.get()
            #expect(response.data == Self.original)
            #expect(response.head.headers.first(name: "Content-Length") == String(Self.size))
            #expect(source.rangeHeaders == [nil, "bytes=\(Self.cut)-", nil])
            #expect(Self.resumes(events) == [.resuming(url: url, fromByte: Self.cut)])
            #expect(Self.retries(events) == 2)
            #expect(progress.last?.receivedBytes == Self.size)
        }
    }

    @Test("resume: a refused range with no retry left fails with an error naming the answer; a second drop with none left fails too")
    func resume_retriesSpentFails() async throws {
        try await Self.withResumingDownloader(configure: { $0.retryPolicy = RetryPolicy(maxRetries: 1) }) { origin, downloader, _ in
            let refusing = TestOriginRangedSource(
                [.init(body: Self.original, headers: Self.strongTag)], cuts: [Self.cut], answer: .wrongStart(0), holdsCuts: true
            )
            origin.register("/refused.bin", refusing)
            let refused = await Self.load(origin.url("/refused.bin"), from: refusing, with: downloader).0
            #expect {
                try refused.get()
            } throws: { error in
                guard case ImageError.invalidResponse(let reason) = error else { return false }
                return reason.contains("resuming") && reason.contains("from byte \(Self.cut)") && reason.contains("Content-Range 'bytes 0-")
            }
            #expect(refusing.requestCount == 2)

            let dropping = TestOriginRangedSource(
                [.init(body: Self.original, headers: Self.strongTag)], cuts: [Self.cut, 10_000], holdsCuts: true
            )
            origin.register("/dropping.bin", dropping)
            let dropped = await Self.load(origin.url("/dropping.bin"), from: dropping, with: downloader).0
            #expect(throws: ImageError.self) { try dropped.get() }
            #expect(dropping.rangeHeaders == [nil, "bytes=\(Self.cut)-"])
        }
    }

    // MARK: What is not resumed

    @Test("resume: a body below the threshold is fetched again from the start, or fails once its bytes reached a caller, as before")
    func resume_belowThresholdRetriesAsBefore() async throws {
        try await Self.withResumingDownloader(configure: { $0.resumePolicy = .default }) { origin, downloader, events in
            #expect(ResumePolicy.default.threshold == 256 * 1024)
            let source = TestOriginRangedSource([.init(body: Self.original, headers: Self.strongTag)], cuts: [Self.cut])
            origin.register("/small.bin", source)
            let response = try await downloader.load(origin.url("/small.bin"))
            #expect(response.data == Self.original)
            #expect(source.rangeHeaders == [nil, nil])

            let seen = TestOriginRangedSource([.init(body: Self.original, headers: Self.strongTag)], cuts: [Self.cut], holdsCuts: true)
            origin.register("/seen.bin", seen)
            let failed = await Self.load(origin.url("/seen.bin"), from: seen, with: downloader).0
            #expect(throws: ImageError.self) { try failed.get() }
            #expect(seen.requestCount == 1)
            #expect(Self.resumes(events).isEmpty)

            // A declared length past the threshold resumes however few bytes had arrived.
            let large = Self.body(300 * 1024, seed: 3)
            let big = TestOriginRangedSource([.init(body: large, headers: Self.strongTag)], cuts: [10_000], holdsCuts: true)
            origin.register("/large.bin", big)
            let whole = try await Self.load(origin.url("/large.bin"), from: big, with: downloader).0.get()
            #expect(whole.data == large)
            #expect(big.rangeHeaders == [nil, "bytes=10000-"])
        }
    }

    @Test("resume: ResumePolicy.never on one download's options starts its retry over")
    func resume_offForOneDownload() async throws {
        try await Self.withResumingDownloader { origin, downloader, events in
            let source = TestOriginRangedSource([.init(body: Self.original, headers: Self.strongTag)], cuts: [Self.cut])
            origin.register("/big.bin", source)
            var options = DownloadOptions()
            options.resumePolicy = .never
            let response = try await downloader.load(origin.url("/big.bin"), options: options)
            #expect(response.data == Self.original)
            #expect(source.rangeHeaders == [nil, nil])
            #expect(Self.resumes(events).isEmpty)
        }
    }

    @Test("resume: maxBodySize bounds the whole body, the bytes held and the rest together")
    func resume_maxBodySizeCountsTheWholeBody() async throws {
        try await Self.withResumingDownloader(configure: { $0.maxBodySize = 64 * 1024 }) { origin, downloader, _ in
            // Of unknown length, the first part fits; the 206 says the whole does not.
            let source = TestOriginRangedSource(
                [.init(body: Self.original, headers: Self.strongTag)], cuts: [Self.cut], chunked: true, holdsCuts: true
            )
            origin.register("/big.bin", source)
            let result = await Self.load(origin.url("/big.bin"), from: source, with: downloader).0
            #expect(throws: ImageError.bodyTooLarge(limit: 64 * 1024)) { try result.get() }
            #expect(source.rangeHeaders == [nil, "bytes=\(Self.cut)-"])
        }
    }
}
