import WebImage

extension OptionApplier {
    /// Longest `filename`, in characters.
    static let maxFilenameLength = 255

    /// `background_alpha`, `strip_color_profile`, `keep_copyright`, `enforce_thumbnail`,
    /// `format_quality`, `skip_processing`, `filename`, `return_attachment`.
    func applyOutputOption(_ option: ProcessingOptionName, _ segment: OptionSegment, to options: inout ProcessingOptions, usage: String) throws(ProxyError) {
        switch option {
        case .backgroundAlpha:
            try segment.requireCount(1...1, usage: usage)
            let alpha = try segment.decimal(0, "background alpha", in: 0...1, usage: usage)
            options.backgroundAlpha = alpha == 1 ? nil : alpha
        case .stripColorProfile:
            try segment.requireCount(1...1, usage: usage)
            options.stripColorProfile = boolean(segment, 0, "strip color profile")
        case .keepCopyright:
            try segment.requireCount(1...1, usage: usage)
            options.keepCopyright = boolean(segment, 0, "keep copyright")
        case .enforceThumbnail:
            try segment.requireCount(1...1, usage: usage)
            options.enforceThumbnail = boolean(segment, 0, "enforce thumbnail")
        case .formatQuality:
            try applyFormatQuality(segment, to: &options, usage: usage)
        case .skipProcessing:
            try segment.requireCount(1...16, usage: usage)
            for name in segment.arguments {
                guard let format = ImageFormat(name: String(name)), format != .unknown else {
                    throw segment.error("'\(name.prefix(32))' is not an image format", usage: usage)
                }
                options.skipProcessing.insert(format)
            }
        case .filename:
            try segment.requireCount(1...2, usage: usage)
            options.filename = try filename(segment, usage: usage)
        case .returnAttachment:
            try segment.requireCount(1...1, usage: usage)
            options.returnAttachment = boolean(segment, 0, "return attachment")
        default:
            preconditionFailure("\(option) is not an output option")
        }
    }

    /// `format:quality` pairs; quality 0 removes the format's entry.
    private func applyFormatQuality(_ segment: OptionSegment, to options: inout ProcessingOptions, usage: String) throws(ProxyError) {
        try segment.requireCount(2...32, usage: usage)
        guard segment.arguments.count.isMultiple(of: 2) else {
            throw segment.error("missing the quality for '\(segment.arguments[segment.arguments.count - 1].prefix(32))': give format:quality pairs", usage: usage)
        }
        for index in stride(from: 0, to: segment.arguments.count, by: 2) {
            let name = segment.arguments[index]
            guard let format = ImageFormat(name: String(name)), format.isWritable else {
                throw segment.error("'\(name.prefix(32))' is not a writable image format", usage: usage)
            }
            let quality = try segment.integer(index + 1, "\(format.fileExtension) quality", in: 0...100, usage: usage)
            options.formatQuality[format] = quality == 0 ? nil : quality
        }
    }

    /// The name as written, or decoded from URL-safe base64 when the second argument is true.
    private func filename(_ segment: OptionSegment, usage: String) throws(ProxyError) -> String? {
        let written = segment.arguments[0]
        let encoded = segment.optional(1) != nil ? boolean(segment, 1, "encoded") : false
        let name: String
        if encoded {
            var text = written
            while text.last == "=" { text = text.dropLast() }
            guard let bytes = Base64URL.decode(text) else {
                throw segment.error("'\(written.prefix(32))' is not URL-safe base64", usage: usage)
            }
            name = String(decoding: bytes, as: UTF8.self)
        } else {
            name = String(written)
        }
        guard name.count <= Self.maxFilenameLength else {
            throw segment.error("the file name is \(name.count) characters long; the limit is \(Self.maxFilenameLength)", usage: usage)
        }
        return name.isEmpty ? nil : name
    }
}
