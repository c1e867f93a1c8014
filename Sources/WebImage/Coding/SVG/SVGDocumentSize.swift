import Foundation

/// The size in pixels an SVG document declares on its root element, read without
/// rendering it: `width` and `height` in CSS pixels (`px`, none, `pt`, `pc`, `in`, `cm`,
/// `mm`), else, for a side given in another unit, as a percentage or not at all, that side
/// of the `viewBox`.
enum SVGDocumentSize {
    /// CSS pixels a unit.
    private static let pixelsPerUnit: [String: Double] = [
        "": 1, "px": 1, "pt": 96.0 / 72, "pc": 16, "in": 96, "cm": 96 / 2.54, "mm": 96 / 25.4,
    ]

    /// The declared size of `data`'s root element; `nil` when the document does not start
    /// like XML with an element, or declares neither a usable size nor a `viewBox`.
    static func of(_ data: Data) -> PixelSize? {
        var tokenizer = SVGTokenizer(bytes: Array(data.prefix(1 << 20)), maxExpansion: 1 << 20)
        while let token = try? tokenizer.next() {
            guard case .startTag(_, let attributes, _) = token else { continue }
            func value(_ name: String) -> String? { attributes.first { $0.name == name }?.value }
            let box = value("viewBox").map(viewBox) ?? nil
            guard let width = value("width").flatMap(length) ?? box?.width,
                  let height = value("height").flatMap(length) ?? box?.height else {
                return nil
            }
            return PixelSize(width: max(1, Int(width.rounded())), height: max(1, Int(height.rounded())))
        }
        return nil
    }

    /// A length such as `120`, `120px` or `2.5in`, in pixels; `nil` for a percentage, an
    /// unknown unit or a value that is not positive.
    private static func length(_ text: String) -> Double? {
        let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
        let number = trimmed.prefix { $0.isNumber || $0 == "." || $0 == "-" || $0 == "+" || $0 == "e" }
        guard let value = Double(number), value > 0, value.isFinite,
              let scale = pixelsPerUnit[String(trimmed.dropFirst(number.count))] else { return nil }
        return value * scale
    }

    /// The width and height of a `viewBox` (`min-x min-y width height`).
    private static func viewBox(_ text: String) -> (width: Double, height: Double)? {
        let numbers = text.split { $0 == " " || $0 == "," }.compactMap { Double($0) }
        guard numbers.count == 4, numbers[2] > 0, numbers[3] > 0, numbers[2].isFinite, numbers[3].isFinite else { return nil }
        return (numbers[2], numbers[3])
    }
}
