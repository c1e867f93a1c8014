extension OptionApplier {
    /// `extend[:gravity[:x:y]]` starting at `first`, for `extend` (and the extend part of
    /// `resize`/`size`). Without a gravity the current extend gravity stays, as in imgproxy.
    func applyExtend(_ segment: OptionSegment, from first: Int, to options: inout ProcessingOptions, usage: String) throws(ProxyError) {
        options.extend = boolean(segment, first, "extend")
        if segment.arguments.count > first + 1 {
            options.extendGravity = try gravity(segment, from: first + 1, current: options.extendGravity, allowSmart: false, usage: usage)
        }
    }

    /// A gravity whose type is at `first`; every argument after it belongs to the gravity.
    ///
    /// As imgproxy reads it: an anchor takes up to two offsets, each optional — a missing
    /// or empty one keeps the offset of `current` (`g:no::5` sets only the y offset);
    /// `fp` takes exactly two coordinates (again, empty keeps the current one), each within
    /// 0…1; `sm` takes none and clears the offsets.
    func gravity(
        _ segment: OptionSegment, from first: Int, current: ProxyGravity, allowSmart: Bool, usage: String
    ) throws(ProxyError) -> ProxyGravity {
        let type = segment.arguments[first]
        let extra = segment.arguments.count - first - 1
        let (currentX, currentY) = current.offsets
        switch type {
        case "sm":
            guard allowSmart else { throw segment.error("smart gravity cannot place an extended image", usage: usage) }
            guard extra == 0 else { throw segment.error("smart gravity takes no offsets", usage: usage) }
            return .smart
        case "fp":
            guard extra == 2 else { throw segment.error("focus-point gravity needs fp:<x>:<y>", usage: usage) }
            let x = try offset(segment, first + 1, "focus point x", in: 0...1, else: currentX, usage: usage)
            let y = try offset(segment, first + 2, "focus point y", in: 0...1, else: currentY, usage: usage)
            return .focusPoint(x: x, y: y)
        default:
            guard let anchor = GravityAnchor(rawValue: String(type)) else {
                throw segment.error("unknown gravity '\(type.prefix(32))'", usage: usage)
            }
            guard extra <= 2 else {
                throw segment.error("a gravity takes at most two offsets: <type>[:<x offset>[:<y offset>]]", usage: usage)
            }
            let bound = Double(Self.maxSide)
            let x = try offset(segment, first + 1, "x offset", in: -bound...bound, else: currentX, usage: usage)
            let y = try offset(segment, first + 2, "y offset", in: -bound...bound, else: currentY, usage: usage)
            return .anchor(anchor, xOffset: x, yOffset: y)
        }
    }

    /// The offset at `index`, or `fallback` when it is missing or empty.
    private func offset(
        _ segment: OptionSegment, _ index: Int, _ what: String, in range: ClosedRange<Double>, else fallback: Double, usage: String
    ) throws(ProxyError) -> Double {
        guard segment.optional(index) != nil else { return fallback }
        return try segment.decimal(index, what, in: range, usage: usage)
    }
}

extension ProxyGravity {
    /// The x and y offsets (focus-point coordinates for `fp`; none for `sm`).
    var offsets: (x: Double, y: Double) {
        switch self {
        case .anchor(_, let x, let y), .focusPoint(let x, let y): (x, y)
        case .smart: (0, 0)
        }
    }
}
