import Foundation

/// An image container format, recognised from the file's first bytes (never from a
/// URL's extension or a server's `Content-Type`, which can lie).
///
/// Recognising a format does not mean ``VipsCoder`` reads it: libvips has no QOI loader,
/// so ``qoi`` bytes decode only through ``QOICoder`` (on its own, or added to an
/// ``ImageCodersManager``).
public enum ImageFormat: String, Sendable, Hashable, CaseIterable, Codable {
    /// A format recognised by its signature bytes: JPEG, PNG, GIF, WebP, HEIC, HEIF, AVIF,
    /// TIFF, BMP, ICO, JPEG XL, PDF or SVG.
    case jpeg, png, gif, webp, heic, heif, avif, tiff, bmp, ico, jxl, pdf, svg
    /// The "Quite OK Image" format (qoiformat.org), read and written by ``QOICoder``.
    case qoi
    /// Not an image format WebImage recognises (text, HTML, empty data…).
    case unknown

    /// Detects the format from magic bytes at the start of `data`.
    public init(data: Data) {
        self = data.withUnsafeBytes { ImageFormat.detect(UnsafeRawBufferPointer($0)) }
    }

    /// Detects the format from magic bytes at the start of `bytes`.
    public init(bytes: UnsafeRawBufferPointer) {
        self = ImageFormat.detect(bytes)
    }

    /// The IANA media type, e.g. `image/jpeg`.
    public var mimeType: String {
        switch self {
        case .jpeg: "image/jpeg"
        case .png: "image/png"
        case .gif: "image/gif"
        case .webp: "image/webp"
        case .heic: "image/heic"
        case .heif: "image/heif"
        case .avif: "image/avif"
        case .tiff: "image/tiff"
        case .bmp: "image/bmp"
        case .ico: "image/vnd.microsoft.icon"
        case .jxl: "image/jxl"
        case .pdf: "application/pdf"
        case .svg: "image/svg+xml"
        case .qoi: "image/qoi"
        case .unknown: "application/octet-stream"
        }
    }

    /// The usual file extension, without the dot (`jpg`, `png`…); empty for `unknown`.
    public var fileExtension: String {
        switch self {
        case .jpeg: "jpg"
        case .unknown: ""
        default: rawValue
        }
    }

    /// Formats ``VipsCoder`` can encode to: libvips' savers, and BMP and ICO, which it
    /// writes in Swift (``bmp`` uncompressed, ``ico`` as one PNG of at most 256 pixels a
    /// side). ``qoi`` is not among them: ``QOICoder`` writes it (ask a coder's
    /// ``ImageCoder/canEncode(_:)`` when the coder is not ``VipsCoder``). Nor is ``svg``:
    /// an SVG source is served as SVG by ``SVGSanitizer``, never encoded from pixels.
    public var isWritable: Bool {
        switch self {
        case .jpeg, .png, .webp, .avif, .heic, .gif, .tiff, .jxl, .bmp, .ico: true
        default: false
        }
    }

    /// Whether an ICC profile is written into the format: every writable one but GIF, BMP
    /// and ICO, which are written in sRGB.
    public var carriesColorProfile: Bool { isWritable && ![.gif, .bmp, .ico].contains(self) }

    /// Whether the format can hold several frames that WebImage decodes as an animation.
    public var supportsAnimation: Bool { self == .gif || self == .webp }

    /// The format a file extension or media type names (`jpg`, `jpeg`, `image/webp`…), if any.
    public init?(name: String) {
        let lowered = name.lowercased()
        let key = lowered.hasPrefix("image/") ? String(lowered.dropFirst(6)) : lowered
        switch key {
        case "jpg", "jpeg", "pjpeg": self = .jpeg
        case "png", "apng": self = .png
        case "gif": self = .gif
        case "webp": self = .webp
        case "heic", "heics": self = .heic
        case "heif", "heifs": self = .heif
        case "avif", "avifs": self = .avif
        case "tif", "tiff": self = .tiff
        case "bmp", "x-ms-bmp": self = .bmp
        case "ico", "vnd.microsoft.icon", "x-icon": self = .ico
        case "jxl": self = .jxl
        case "pdf", "application/pdf": self = .pdf
        case "svg", "svg+xml": self = .svg
        case "qoi", "x-qoi": self = .qoi
        default: return nil
        }
    }

    private static func detect(_ b: UnsafeRawBufferPointer) -> ImageFormat {
        func starts(_ prefix: [UInt8], at offset: Int = 0) -> Bool {
            guard b.count >= offset + prefix.count else { return false }
            for (i, byte) in prefix.enumerated() where b[offset + i] != byte { return false }
            return true
        }
        if starts([0xFF, 0xD8, 0xFF]) { return .jpeg }
        if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        if starts(Array("GIF87a".utf8)) || starts(Array("GIF89a".utf8)) { return .gif }
        if starts(Array("RIFF".utf8)) && starts(Array("WEBP".utf8), at: 8) { return .webp }
        if starts(Array("ftyp".utf8), at: 4) { return isoMediaFormat(b) }
        if starts([0x49, 0x49, 0x2A, 0x00]) || starts([0x4D, 0x4D, 0x00, 0x2A]) { return .tiff }
        if starts([0xFF, 0x0A]) || starts([0, 0, 0, 0x0C, 0x4A, 0x58, 0x4C, 0x20, 0x0D, 0x0A, 0x87, 0x0A]) { return .jxl }
        if starts(Array("%PDF-".utf8)) { return .pdf }
        if starts(Array("qoif".utf8)) && b.count >= QOIHeader.size { return .qoi }
        if starts(Array("BM".utf8)) && b.count >= 26 { return .bmp }
        if starts([0x00, 0x00, 0x01, 0x00]) && b.count >= 22 && b[4] | b[5] != 0 { return .ico }
        if isSVG(b) { return .svg }
        return .unknown
    }

    /// HEIC, HEIF and AVIF share the ISO base media file format; the `ftyp` box's major
    /// brand, else its compatible brands, tell them apart.
    private static func isoMediaFormat(_ b: UnsafeRawBufferPointer) -> ImageFormat {
        guard b.count >= 12 else { return .unknown }
        let boxSize = Int(b[0]) << 24 | Int(b[1]) << 16 | Int(b[2]) << 8 | Int(b[3])
        func brand(at offset: Int) -> String {
            String(decoding: UnsafeRawBufferPointer(rebasing: b[offset..<offset + 4]), as: UTF8.self)
        }
        var brands = [brand(at: 8)]
        var offset = 16
        while offset + 4 <= min(boxSize, b.count) {
            brands.append(brand(at: offset))
            offset += 4
        }
        if brands.contains(where: { $0 == "avif" || $0 == "avis" }) { return .avif }
        if brands.contains(where: { ["heic", "heix", "hevc", "hevx", "heim", "heis"].contains($0) }) { return .heic }
        if brands.contains(where: { $0 == "mif1" || $0 == "msf1" }) { return .heif }
        return .unknown
    }

    private static func isSVG(_ b: UnsafeRawBufferPointer) -> Bool {
        let head = String(decoding: UnsafeRawBufferPointer(rebasing: b[0..<min(b.count, 1024)]), as: UTF8.self)
        var text = Substring(head)
        if text.hasPrefix("\u{FEFF}") { text = text.dropFirst() }
        text = text.drop(while: { $0.isWhitespace })
        guard text.hasPrefix("<") else { return false }
        let lowered = text.lowercased()
        guard lowered.hasPrefix("<?xml") || lowered.hasPrefix("<svg") || lowered.hasPrefix("<!--") || lowered.hasPrefix("<!doctype svg") else {
            return false
        }
        return lowered.contains("<svg")
    }
}
