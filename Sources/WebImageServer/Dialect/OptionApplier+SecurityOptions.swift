extension OptionApplier {
    /// Largest resolution a URL may name, in megapixels.
    static let maxMegapixels = 1_000_000.0
    /// Largest `max_src_file_size`: 1 TiB.
    static let maxSourceFileSizeLimit = 1 << 40
    /// Largest `max_animation_frames` and `max_result_dimension`.
    static let maxSecurityCount = 10_000_000

    /// `max_src_resolution`, `max_src_file_size`, `max_animation_frames`,
    /// `max_animation_frame_resolution`, `max_result_dimension`: 403 unless the server
    /// allows security options in URLs.
    func applySecurityOption(_ option: ProcessingOptionName, _ segment: OptionSegment, to options: inout ProcessingOptions, usage: String) throws(ProxyError) {
        guard allowSecurityOptions else {
            throw .forbidden("option '\(segment.text.prefix(100))': security options are not allowed in URLs; the server allows them with \(ServerSetting.allowSecurityOptions.names)")
        }
        try segment.requireCount(1...1, usage: usage)
        switch option {
        case .maxSourceResolution:
            options.limits.maxSourceResolution = try pixels(segment, "max source resolution", usage: usage)
        case .maxSourceFileSize:
            options.limits.maxSourceFileSize = try segment.integer(0, "max source file size", in: 0...Self.maxSourceFileSizeLimit, usage: usage)
        case .maxAnimationFrames:
            options.limits.maxAnimationFrames = try segment.integer(0, "max animation frames", in: 1...Self.maxSecurityCount, usage: usage)
        case .maxAnimationFrameResolution:
            options.limits.maxAnimationFrameResolution = try pixels(segment, "max animation frame resolution", usage: usage)
        case .maxResultDimension:
            options.limits.maxResultDimension = try segment.integer(0, "max result dimension", in: 0...Self.maxSecurityCount, usage: usage)
        default:
            preconditionFailure("\(option) is not a security option")
        }
    }

    /// Megapixels as written, in pixels.
    private func pixels(_ segment: OptionSegment, _ what: String, usage: String) throws(ProxyError) -> Int {
        let megapixels = try segment.decimal(0, "\(what) (megapixels)", in: 0...Self.maxMegapixels, usage: usage)
        return Int((megapixels * 1_000_000).rounded())
    }
}
