/// One `name:arg1:arg2…` path segment, with argument readers whose errors name the
/// segment, the bad argument and the accepted form.
struct OptionSegment {
    /// The whole segment, quoted in error messages.
    let text: Substring
    /// The option's name as written (an alias or the full name).
    let name: Substring
    /// The arguments after the name, possibly empty strings.
    let arguments: [Substring]

    /// Splits `text` at `separator` (`:`, or the server's arguments separator).
    init(_ text: Substring, separator: Unicode.Scalar = ":") {
        self.text = text
        var parts = text.fields(separatedBy: separator)
        self.name = parts.removeFirst()
        self.arguments = parts
    }

    /// Builds a 400 whose message starts with the quoted segment.
    func error(_ problem: String, usage: String) -> ProxyError {
        .badRequest("option '\(text.prefix(100))': \(problem); use \(usage)")
    }

    /// Requires between `range.lowerBound` and `range.upperBound` arguments.
    func requireCount(_ range: ClosedRange<Int>, usage: String) throws(ProxyError) {
        guard range.contains(arguments.count) else {
            let expected = range.lowerBound == range.upperBound
                ? "\(range.lowerBound)"
                : "\(range.lowerBound) to \(range.upperBound)"
            throw error("expected \(expected) argument\(range.upperBound == 1 ? "" : "s"), got \(arguments.count)", usage: usage)
        }
    }

    /// The argument at `index`, or `nil` when it is absent or empty (meta-options allow that).
    func optional(_ index: Int) -> Substring? {
        guard index < arguments.count, !arguments[index].isEmpty else { return nil }
        return arguments[index]
    }

    /// A whole number in `range`; digits only, with an optional leading `-`.
    func integer(_ index: Int, _ what: String, in range: ClosedRange<Int>, usage: String) throws(ProxyError) -> Int {
        let text = index < arguments.count ? arguments[index] : ""
        guard Self.isInteger(text), let value = Int(text) else {
            throw error("\(what) '\(text.prefix(32))' is not a whole number", usage: usage)
        }
        guard range.contains(value) else {
            throw error("\(what) \(value) is out of range \(range.lowerBound)…\(range.upperBound)", usage: usage)
        }
        return value
    }

    /// A finite decimal number in `range` (`1`, `0.5`, `.5`, `-2.25`; no exponent, no `inf`/`nan`),
    /// rounded to six decimals.
    func decimal(_ index: Int, _ what: String, in range: ClosedRange<Double>, usage: String) throws(ProxyError) -> Double {
        let text = index < arguments.count ? arguments[index] : ""
        guard Self.isDecimal(text), let parsed = Double(text), parsed.isFinite else {
            throw error("\(what) '\(text.prefix(32))' is not a number", usage: usage)
        }
        // Six decimals are plenty for any pixel size, fraction or sigma, and make every
        // value print back exactly in the variant key.
        let value = (parsed * 1e6).rounded() / 1e6
        guard range.contains(value) else {
            throw error("\(what) \(ProcessingOptions.canonical(value)) is out of range \(ProcessingOptions.canonical(range.lowerBound))…\(ProcessingOptions.canonical(range.upperBound))", usage: usage)
        }
        return value
    }

    /// A boolean spelled as Go's `strconv.ParseBool` accepts (`1`, `t`, `T`, `TRUE`, `true`,
    /// `True`, `0`, `f`, `F`, `FALSE`, `false`, `False`), as imgproxy reads them. An empty
    /// argument is `false`, and so is any other spelling (`yes`, `on`), said to `warn`, as
    /// imgproxy reads it: a URL written for imgproxy gets the same image here.
    func boolean(_ index: Int, _ what: String, warn: (String) -> Void) -> Bool {
        let text = index < arguments.count ? arguments[index] : ""
        switch text {
        case "1", "t", "T", "TRUE", "true", "True": return true
        case "0", "f", "F", "FALSE", "false", "False", "": return false
        default:
            warn("option '\(self.text.prefix(100))': \(what) '\(text.prefix(32))' is not a boolean (1, t, true or 0, f, false): read as false")
            return false
        }
    }


    private static func isInteger(_ text: Substring) -> Bool {
        let digits = text.first == "-" ? text.dropFirst() : text
        return !digits.isEmpty && digits.count <= 18 && digits.utf8.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
    }

    private static func isDecimal(_ text: Substring) -> Bool {
        let body = text.first == "-" ? text.dropFirst() : text
        guard !body.isEmpty, body.count <= 32 else { return false }
        var digits = 0
        var dots = 0
        for byte in body.utf8 {
            if byte == UInt8(ascii: ".") {
                dots += 1
            } else if byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") {
                digits += 1
            } else {
                return false
            }
        }
        return digits > 0 && dots <= 1
    }
}
