import Foundation
import Tracing

/// What the encoded outputs are made of, on a coding thread: a source's details, its own
/// bytes, or a processed image encoded (or its ThumbHash), each with what an HTTP
/// response says about it.
enum VariantEncoder {
    /// The source's ``ImageDetails`` as JSON, in a `webimage.decode` span.
    static func details(of source: SourceData, includeGPS: Bool, coder: any ImageCoder, limits: ImageLimits, trace: ServiceContext?)
        throws(ImageError) -> EncodedVariant
    {
        let details = try LibrarySpans.run("webimage.decode", parent: trace) { _ throws(ImageError) -> ImageDetails in
            try ImageDetails(data: source.data, coder: coder, limits: limits, includeGPS: includeGPS)
        }
        return EncodedVariant(
            data: try ImageDetails.json(details), pixelSize: PixelSize(width: details.width, height: details.height), source: source,
            info: nil
        )
    }

    /// The source's own bytes, when `passthrough` says they are served as they are (its
    /// header is read and checked against `limits` first); `nil` when they are not.
    static func passthrough(_ source: SourceData, _ passthrough: VariantPassthrough, coder: any ImageCoder, limits: ImageLimits)
        throws(ImageError) -> EncodedVariant?
    {
        if case .never = passthrough { return nil }
        let info = try coder.inspect(source.data, limits: limits)
        if case .formats(let formats) = passthrough, !formats.contains(info.format) { return nil }
        return EncodedVariant(data: source.data, pixelSize: info.uprightPixelSize, source: source, info: info)
    }

    /// An SVG source served as SVG, when `handling` says so and the source is SVG (read
    /// from its first bytes): sanitised as it says, its pixel size the one its root
    /// element declares (zero when it declares none), nothing rendered; `nil` otherwise.
    static func svg(_ source: SourceData, _ handling: SVGSourceHandling) throws(ImageError) -> EncodedVariant? {
        guard case .serve(let sanitizer) = handling, ImageFormat(data: source.data) == .svg else { return nil }
        let data = try sanitizer?.sanitize(source.data) ?? source.data
        return EncodedVariant(data: data, pixelSize: SVGDocumentSize.of(data) ?? .zero, source: source, info: nil)
    }

    /// The ThumbHash of `processed` (its first frame), as its base64 text.
    static func thumbHash(of processed: ProcessedImage) throws(ImageError) -> EncodedVariant {
        let image = ImageCache.firstFrame(of: processed.image)
        let hash = try ThumbHash(image: image)
        return EncodedVariant(data: Data(hash.base64.utf8), pixelSize: image.pixelSize, source: processed.decoded.source, info: processed.decoded.info)
    }

    /// `processed` encoded as `encoding` says, in a `webimage.encode` span: in the format
    /// it names, or chosen from the source's header (its format, alpha and frames).
    static func encode(_ processed: ProcessedImage, as encoding: VariantEncoding, coder: any ImageCoder, trace: ServiceContext?)
        throws(ImageError) -> EncodedVariant
    {
        let info = processed.decoded.info
        let candidates = encoding.format.candidates(
            sourceFormat: info.format, hasAlpha: info.hasAlpha, isAnimated: info.frameCount > 1 && processed.image.isAnimated
        )
        if candidates == [.svg] {
            throw .invalidTransform(
                "an SVG output is made only from an SVG source served as SVG; this source is \(info.format.rawValue): ask for a raster format"
            )
        }
        let output = processed.image
        let choice = try LibrarySpans.run("webimage.encode", parent: trace) { span throws(ImageError) -> EncodeChoice in
            let choice = try encodeSmallest(output, candidates: candidates, encoding: encoding, coder: coder)
            span.attributes["webimage.format"] = choice.format.rawValue
            span.attributes["webimage.bytes"] = choice.data.count
            span.attributes["webimage.encodes"] = choice.encodes
            if let quality = choice.quality { span.attributes["webimage.quality"] = quality }
            if let score = choice.score { span.attributes["webimage.score"] = score }
            return choice
        }
        // An icon is scaled down to fit as it is written.
        let pixelSize = choice.format == .ico ? ICOEncoder.fittedSize(output.pixelSize) : output.pixelSize
        return EncodedVariant(
            data: choice.data, pixelSize: pixelSize, source: processed.decoded.source, info: processed.decoded.info,
            quality: choice.quality, score: choice.score
        )
    }

    /// Encodes `image` in each candidate format (one, unless the format is
    /// ``VariantFormat/best(_:)``) and keeps the smallest result; `encodes` counts them all.
    /// With auto quality, a result that meets the target beats one that misses it whatever
    /// their sizes (a format may not reach the target even at its top quality).
    /// With several candidates, one that fails to encode is passed over; the error of the
    /// last is thrown when all fail. Candidates left when the work's ``EncodeAllowance``
    /// is spent are not tried. An animation whose frames are made on demand is made
    /// again for each candidate: memory stays at a few frames, at the cost of its decode.
    static func encodeSmallest(
        _ image: Image, candidates: [ImageFormat], encoding: VariantEncoding, coder: any ImageCoder
    ) throws(ImageError) -> EncodeChoice {
        var smallest: EncodeChoice?
        var encodes = 0
        var lastError: ImageError?
        for format in candidates {
            // Past the work's allowance of encodes, the smallest result so far is served.
            if smallest != nil, !EncodeAllowance.currentHasLeft { break }
            do {
                let choice = try QualitySearch.encode(
                    image, options: encoding.encodeOptions(for: format), auto: encoding.autoQuality, coder: coder
                )
                encodes += choice.encodes
                if let current = smallest {
                    if isBetter(choice, than: current, target: encoding.autoQuality?.target) { smallest = choice }
                } else {
                    smallest = choice
                }
            } catch {
                guard candidates.count > 1, error != .cancelled else { throw error }
                lastError = error
            }
        }
        guard let smallest else { throw lastError ?? .encodingFailed("no format to encode in") }
        return EncodeChoice(
            data: smallest.data, format: smallest.format, quality: smallest.quality, score: smallest.score, encodes: encodes
        )
    }

    /// Whether `candidate` should be served instead of `current`: it meets the quality
    /// target where `current` does not, or both are alike on that and it is smaller.
    static func isBetter(_ candidate: EncodeChoice, than current: EncodeChoice, target: Double?) -> Bool {
        if let target {
            let candidateMeets = (candidate.score ?? 1) >= target
            let currentMeets = (current.score ?? 1) >= target
            if candidateMeets != currentMeets { return candidateMeets }
        }
        return candidate.data.count < current.data.count
    }
}
