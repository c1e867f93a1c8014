/// How the built-in transformers spell their ``ImageTransformer/key``.
///
/// A key is `<name>` followed by its parameters, each after a `-`:
/// `resize-fill-400x300-ce`, `crop-10-20-100x50`, `blur-1p5`, `rotate-45-fit-00000000`.
/// Sizes are `<width>x<height>`, colours `rrggbbaa` in lowercase hex, gravities imgproxy's
/// short names (``Gravity/keyComponent``). Numbers are written in the shortest form that
/// reads back to the same value, with `p` for the decimal point and a leading `m` for a
/// minus sign (`1p5`, `m2`), so a key never holds a `.` — which would read as a file
/// extension once the key is inside a cache key — nor `/` or whitespace.
/// ``TransformerPipeline`` joins its children's keys with `+`.
enum TransformKey {
    /// `value` in key form: `2`, `1p5`, `m0p25`, `nan`, `inf`.
    static func number(_ value: Double) -> String {
        if value.isNaN { return "nan" }
        if value.isInfinite { return value < 0 ? "minf" : "inf" }
        let text: String
        if value == value.rounded(), abs(value) < 1e15 {
            text = String(Int(value))
        } else {
            text = String(value)
        }
        // `String(1e20)` is "1e+20": the `+` (the pipeline separator) goes too.
        return text.replacingOccurrences(of: "+", with: "")
            .replacingOccurrences(of: "-", with: "m")
            .replacingOccurrences(of: ".", with: "p")
    }

    /// `value` in key form, `m` for a minus sign.
    static func number(_ value: Int) -> String {
        value < 0 ? "m\(value.magnitude)" : String(value)
    }

    /// `WxH` in key form.
    static func size(_ size: PixelSize) -> String {
        "\(number(size.width))x\(number(size.height))"
    }
}
