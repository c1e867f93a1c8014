import Foundation
import NIOPosix
import Tracing

extension ImagePipeline {
    /// The encoded output of `request` (``ImageOutput/encoded(_:passthrough:)``, details or
    /// a ThumbHash), not in memory: from the disk cache, or made from the source in a work
    /// slot. Requests for the same output at once share one making; the output is kept as
    /// the request says, and stored on disk in the visit to the coding thread that made it.
    /// With ``ImageRequest/alternativeSources``, an output the request's own source cannot
    /// make is made from its alternatives (``tryingSources(_:manager:_:)``), and the result
    /// names the one that answered; an alternative cached under its own key is looked up in
    /// memory first.
    func variant(_ request: ResolvedRequest, manager: ImageManager) async throws(ImageError) -> VariantResult {
        let (made, alternative) = try await tryingSources(request, manager: manager) { attempt throws(ImageError) -> VariantResult in
            if attempt.attempt?.cachesUnderOwnKey == true, let key = attempt.key,
               let variant = manager.variantFromMemory(for: attempt.request, key: key) {
                return VariantResult(variant: variant, cacheType: .memory)
            }
            return try await self.sharedVariant(attempt, manager: manager)
        }
        var result = made
        result.alternativeSourceIndex = alternative
        return result
    }

    /// The output of one source of the request, from the making of it running now or a new one.
    private func sharedVariant(_ request: ResolvedRequest, manager: ImageManager) async throws(ImageError) -> VariantResult {
        let background = background(of: request)
        var (result, joined) = try await variants.run(
            request.variantStageKey, keepRunning: background.keepRunning, backgroundDeadline: background.deadline
        ) { () throws(ImageError) -> VariantResult in
            guard request.request.options.contains(.refreshCached) else { return try await self.makeVariant(request) }
            return try await self.revalidateVariant(request, manager: manager)
        }
        result.joined = joined
        return result
    }

    /// A source served as it is, or to be made into the output.
    private enum ServedSource: Sendable {
        case served(MadeVariant)
        case toMake(SourceData)
    }

    /// What one visit to the coding thread made: the output and what it came from.
    private struct MadeVariant: Sendable {
        let variant: EncodedVariant
        let sourceCacheType: CacheType
        let downloadedBytes: Int
        let transfer: SourceTransfer?
    }

    /// The output from the disk cache, else made: its source loaded outside the work
    /// limiter, then decoded, processed and encoded in one of its slots.
    private func makeVariant(_ request: ResolvedRequest) async throws(ImageError) -> VariantResult {
        if request.revalidating == nil, request.request.caching.query.includesDisk, let key = request.key,
           let variant = await cachedVariant(forKey: key, of: request) {
            if request.resultStore.includesMemory { request.cache.storeVariantToMemory(variant, forKey: key) }
            return VariantResult(variant: variant, cacheType: .disk)
        }
        guard let limiter else { return try await make(request, on: BlockingPools.coding, slot: nil) }
        try limiter.checkAdmission()
        var request = request
        request.memory = limiter.memoryBudget.map(MemoryReservation.init)
        let slot = WorkSlot(limiter: limiter, priority: request.request.priority)
        defer {
            request.memory?.release()
            slot.release()
        }
        let start = ContinuousClock.now
        var result = try await make(request, on: limiter.threads, slot: slot)
        if let (asked, taken) = slot.acquisition {
            result.timings = VariantTimings(loading: asked - start, waiting: taken - asked, making: ContinuousClock.now - taken)
        }
        return result
    }

    /// The cached output while it is known to be fresh; else the output after revalidating
    /// its source with the validators stored with it: the cached output while the source is
    /// unchanged (both renewed; made from the cached source when it is not cached itself),
    /// else made anew from the new source, which replaces the old.
    private func revalidateVariant(_ request: ResolvedRequest, manager: ImageManager) async throws(ImageError) -> VariantResult {
        if let key = request.key, request.request.caching.query.includesDisk, let entry = await request.cache.entry(forKey: key),
           request.isKnownFreshResult(entry.metadata), let variant = EncodedVariant(entry: entry) {
            return VariantResult(variant: variant, cacheType: .disk)
        }
        var validators = CacheMetadata()
        if let originalKey = request.originalKey, let stored = await request.sourceCache.metadata(forKey: originalKey) { validators = stored }
        do throws(ImageError) {
            return try await makeVariant(request.revalidating(validators, manager: manager))
        } catch .cacheNotModified {
            await renewCached(request)
            if let key = request.key, request.request.caching.query.includesMemory, let variant = request.cache.variantFromMemory(forKey: key) {
                return VariantResult(variant: variant, cacheType: .memory)
            }
            return try await makeVariant(request)
        }
    }

    /// The output on disk while it is fresh, in a `webimage.cache.lookup` span; a stale one
    /// is made again from its source, which is revalidated when it is stale too.
    private func cachedVariant(forKey key: String, of request: ResolvedRequest) async -> EncodedVariant? {
        await LibrarySpans.run("webimage.cache.lookup") { span async -> EncodedVariant? in
            let variant = await request.cache.entry(forKey: key).flatMap { request.isFreshResult($0.metadata) ? EncodedVariant(entry: $0) : nil }
            Self.describeLookup(span, kind: "variant", hit: variant != nil)
            return variant
        }
    }

    /// Makes the output from the source on `threads` (in `slot`, once the source is in) and keeps it.
    private func make(_ request: ResolvedRequest, on threads: NIOThreadPool, slot: WorkSlot?) async throws(ImageError) -> VariantResult {
        var run = StageRun(threads: threads, slot: slot, events: .none, trace: LibrarySpans.currentContext, cacheIOOnCodingThreads: true)
        run.allowance = EncodeAllowance(limit: maxEncodesPerOutput)
        let (coder, limits, trace) = (request.coder, request.request.limits, run.trace)
        let stored: @Sendable (EncodedVariant, SourceData) -> MadeVariant = { variant, source in
            Self.storeMade(variant, from: source, request, trace: trace)
        }
        let made: MadeVariant
        switch request.request.output {
        case .details(let includeGPS):
            made = try await withSource(request, run: run) { source throws(ImageError) -> MadeVariant in
                stored(try VariantEncoder.details(of: source, includeGPS: includeGPS, coder: coder, limits: limits, trace: trace), source)
            }
        case .encoded(let encoding, let passthrough) where passthrough != .never || encoding.svgSources != .rasterize:
            // Whether the source is served as it is (or as SVG) shows in its header, read in
            // the source stage; a source that is not is made through the decode and process
            // stages like any other, from the bytes in hand.
            let served = try await withSource(request, run: run) { source throws(ImageError) -> ServedSource in
                if let variant = try VariantEncoder.passthrough(source, passthrough, coder: coder, limits: limits) {
                    return .served(stored(variant, source))
                }
                if let variant = try VariantEncoder.svg(source, encoding.svgSources) { return .served(stored(variant, source)) }
                // Bytes that are no image are found here, where a cached copy is replaced.
                _ = try coder.inspect(source.data, limits: limits)
                return .toMake(source)
            }
            switch served {
            case .served(let variant):
                made = variant
            case .toMake(let source):
                do throws(ImageError) {
                    made = try await withProcessed(request, run: run, from: source) { processed throws(ImageError) -> MadeVariant in
                        try Self.reserveMaking(for: request, from: processed.decoded)
                        return stored(try VariantEncoder.encode(processed, as: encoding, coder: coder, trace: trace), processed.decoded.source)
                    }
                } catch {
                    await sourceFailed(source, error, request)
                    throw error
                }
            }
        case .encoded(let encoding, _):
            made = try await withProcessed(request, run: run) { processed throws(ImageError) -> MadeVariant in
                try Self.reserveMaking(for: request, from: processed.decoded)
                return stored(try VariantEncoder.encode(processed, as: encoding, coder: coder, trace: trace), processed.decoded.source)
            }
        case .thumbHash:
            made = try await withProcessed(request, run: run) { processed throws(ImageError) -> MadeVariant in
                try Self.reserveMaking(for: request, from: processed.decoded)
                return stored(try VariantEncoder.thumbHash(of: processed), processed.decoded.source)
            }
        case .image, .data:
            throw .invalidRequest(field: "output", reason: "is an image; load it with loadImage")
        }
        return await keep(made, request)
    }

    /// On a coding thread: writes the output to disk when the request keeps it there.
    private static func storeMade(_ variant: EncodedVariant, from source: SourceData, _ request: ResolvedRequest, trace: ServiceContext?) -> MadeVariant {
        if let key = request.key, request.resultStore.includesDisk {
            storeSync(variant.data, forKey: key, metadata: variant.metadata, in: request.cache, kind: "variant", trace: trace)
        }
        return MadeVariant(
            variant: variant, sourceCacheType: source.cacheType, downloadedBytes: source.cacheType == .none ? source.data.count : 0,
            transfer: source.transfer
        )
    }

    /// Reports the output made and keeps it in memory (its disk write is done).
    private func keep(_ made: MadeVariant, _ request: ResolvedRequest) async -> VariantResult {
        let variant = made.variant
        events.emit(.variantMade(
            url: request.url, bytes: variant.count, sourceCacheType: made.sourceCacheType, downloadedBytes: made.downloadedBytes
        ))
        if let key = request.key, request.resultStore.includesMemory { request.cache.storeVariantToMemory(variant, forKey: key) }
        await finish(request, writing: nil)
        var result = VariantResult(
            variant: variant, cacheType: .none, sourceCacheType: made.sourceCacheType, downloadedBytes: made.downloadedBytes
        )
        result.transfer = made.transfer
        return result
    }
}
