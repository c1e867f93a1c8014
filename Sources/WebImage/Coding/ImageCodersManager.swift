import Foundation

/// An ``ImageCoder`` that hands each call to one of an ordered list of coders: SDWebImage's
/// `SDImageCodersManager`.
///
/// Coders are tried in reverse order of addition: the coder added last has the highest
/// priority, so a coder added at run time takes over the formats it claims from the
/// built-in ones. Decoding (``decode(_:options:)``, ``inspect(_:limits:)``,
/// ``decodePartial(_:options:)``) goes to the first coder, by priority, whose
/// ``ImageCoder/canDecode(_:)`` accepts the data; encoding goes to the first whose
/// ``ImageCoder/canEncode(_:)`` accepts the format. When none does, decoding throws
/// ``ImageError/badImageData(_:)`` and encoding ``ImageError/encodingFailed(_:)``, each
/// naming the data or format, the coders that were asked and the coder to add; data that
/// ``VipsCoder`` refuses only because its libvips loader is untrusted and blocked throws
/// ``ImageError/untrustedFormat(_:)``, as ``VipsCoder`` itself does.
///
/// ```swift
/// let coders = ImageCodersManager()   // [VipsCoder.shared]
/// coders.addCoder(QOICoder())         // QOI now decodes; everything else still goes to libvips
/// let manager = ImageManager(coder: coders)
/// ```
///
/// The list can change at any time from any thread. Each call works on a snapshot taken
/// under a lock and calls the chosen coder without holding it, so a slow decode never
/// blocks a change to the list, nor another decode.
public final class ImageCodersManager: ImageCoder {
    /// The process's shared manager, starting with ``VipsCoder/shared``. Changes to it
    /// affect every user of `shared`; a component that wants its own set of coders makes
    /// its own manager.
    public static let shared = ImageCodersManager()

    private let registry: PriorityRegistry<any ImageCoder>

    /// Creates a manager holding `coders`, in order of addition: the last has the highest
    /// priority. By default it holds ``VipsCoder/shared``.
    public init(coders: [any ImageCoder] = [VipsCoder.shared]) {
        registry = PriorityRegistry(coders)
    }

    /// The coders, in order of addition: the last one is tried first. Setting it replaces
    /// the whole list.
    public var coders: [any ImageCoder] {
        get { registry.entries }
        set { registry.replace(with: newValue) }
    }

    /// Adds `coder` with the highest priority: it is asked before every coder already held.
    public func addCoder(_ coder: any ImageCoder) {
        registry.add(coder)
    }

    /// Removes `coder`, compared by identity (every occurrence of that very object).
    /// Value-type coders such as ``VipsCoder`` and ``QOICoder`` have no identity: remove
    /// them with ``removeCoders(ofType:)`` or ``removeCoders(where:)``.
    public func removeCoder(_ coder: some ImageCoder & AnyObject) {
        registry.remove(identicalTo: coder)
    }

    /// Removes every coder of type `type` and returns how many were removed.
    @discardableResult
    public func removeCoders<Coder: ImageCoder>(ofType type: Coder.Type) -> Int {
        removeCoders { $0 is Coder }
    }

    /// Removes every coder for which `shouldRemove` returns `true` and returns how many
    /// were removed. `shouldRemove` runs while the list is locked: it must not call this
    /// manager.
    @discardableResult
    public func removeCoders(where shouldRemove: (any ImageCoder) -> Bool) -> Int {
        registry.removeAll(where: shouldRemove)
    }

    // MARK: ImageCoder

    /// Whether any coder can decode `data`.
    public func canDecode(_ data: Data) -> Bool {
        decoder(for: data, in: coders) != nil
    }

    /// Whether any coder can write `format`.
    public func canEncode(_ format: ImageFormat) -> Bool {
        coders.contains { $0.canEncode(format) }
    }

    /// Reads the header with the highest-priority coder that can decode `data`.
    public func inspect(_ data: Data, limits: ImageLimits = .default) throws(ImageError) -> ImageInfo {
        let snapshot = coders
        guard let coder = decoder(for: data, in: snapshot) else { throw Self.noDecoder(for: data, among: snapshot) }
        return try coder.inspect(data, limits: limits)
    }

    /// Decodes with the highest-priority coder that can decode `data`.
    public func decode(_ data: Data, options: ImageDecodeOptions = .init()) throws(ImageError) -> Image {
        let snapshot = coders
        guard let coder = decoder(for: data, in: snapshot) else { throw Self.noDecoder(for: data, among: snapshot) }
        return try coder.decode(data, options: options)
    }

    /// Inspects and decodes with the highest-priority coder that can decode `data`.
    public func decode(
        _ data: Data, planning plan: (ImageInfo) throws(ImageError) -> ImageDecodeOptions
    ) throws(ImageError) -> (info: ImageInfo, image: Image) {
        let snapshot = coders
        guard let coder = decoder(for: data, in: snapshot) else { throw Self.noDecoder(for: data, among: snapshot) }
        return try coder.decode(data, planning: plan)
    }

    /// Reads `data` as an animation with the highest-priority coder that can decode it:
    /// frames on demand when that coder decodes them so (``VipsCoder``), else all at once.
    public func animatedImage(
        _ data: Data, limits: ImageLimits = .default, strictness: ImageDecodeOptions.Strictness = .error
    ) throws(ImageError) -> any AnimatedImageProvider {
        let snapshot = coders
        guard let coder = decoder(for: data, in: snapshot) else { throw Self.noDecoder(for: data, among: snapshot) }
        return try coder.animatedImage(data, limits: limits, strictness: strictness)
    }

    /// Decodes a partial download with the highest-priority coder that can decode the
    /// bytes so far; `nil` when no coder recognises them (yet).
    public func decodePartial(_ data: Data, options: ImageDecodeOptions = .init()) throws(ImageError) -> Image? {
        guard let coder = decoder(for: data, in: coders) else { return nil }
        return try coder.decodePartial(data, options: options)
    }

    /// Encodes with the highest-priority coder that can write `options.format`.
    public func encode(_ image: Image, options: ImageEncodeOptions) throws(ImageError) -> Data {
        let snapshot = coders
        guard let coder = PriorityRegistry<any ImageCoder>.first(in: snapshot, where: { $0.canEncode(options.format) }) else {
            throw Self.noEncoder(for: options.format, among: snapshot)
        }
        return try coder.encode(image, options: options)
    }

    // MARK: Routing

    private func decoder(for data: Data, in snapshot: [any ImageCoder]) -> (any ImageCoder)? {
        PriorityRegistry<any ImageCoder>.first(in: snapshot) { $0.canDecode(data) }
    }

    /// The error for data no coder claims: the reason ``VipsCoder`` would give when it
    /// is among the coders and refuses the data for a reason of its own (empty, an
    /// untrusted loader), else which bytes found no coder and how to add one.
    private static func noDecoder(for data: Data, among coders: [any ImageCoder]) -> ImageError {
        guard !data.isEmpty else { return .badImageData("the data is empty (0 bytes)") }
        let format = ImageFormat(data: data)
        if coders.contains(where: { $0 is VipsCoder }), let loader = VipsCoder.untrustedLoaders[format],
           !VipsCoder.untrustedLoadersAllowed {
            return .untrustedFormat(loader)
        }
        let what = format == .unknown
            ? "the \(data.count) bytes (\(VipsCoder.describeStart(of: data)))"
            : "these \(data.count) bytes of \(format.rawValue)"
        let remedy = VipsCoder.otherCoders[format].map { "add \($0)() with addCoder(_:)" }
            ?? "add a coder that reads them with addCoder(_:)"
        return .badImageData("no coder of the ImageCodersManager (\(names(of: coders))) can decode \(what); \(remedy)")
    }

    private static func noEncoder(for format: ImageFormat, among coders: [any ImageCoder]) -> ImageError {
        let writable = ImageFormat.allCases.filter { candidate in coders.contains { $0.canEncode(candidate) } }
        let writes = writable.isEmpty ? "they write no format" : "they write " + writable.map(\.rawValue).joined(separator: ", ")
        let remedy = VipsCoder.otherCoders[format].map { "add \($0)() with addCoder(_:)" }
            ?? "add a coder that writes it with addCoder(_:)"
        return .encodingFailed(
            "no coder of the ImageCodersManager (\(names(of: coders))) can write \(format.rawValue): \(writes); \(remedy)"
        )
    }

    private static func names(of coders: [any ImageCoder]) -> String {
        coders.isEmpty ? "it holds no coder" : coders.reversed().map { String(describing: type(of: $0)) }.joined(separator: ", ")
    }
}
