/// Limits a URL sets for itself (imgproxy's security options), each replacing the server's
/// own for that URL; `nil` keeps the server's. Accepted only when the server allows
/// security options in URLs (`--allow-security-options`).
public struct URLSecurityLimits: Sendable, Hashable {
    /// The most pixels the source may have, frames counted (`max_src_resolution`, `msr`,
    /// given in megapixels).
    public var maxSourceResolution: Int?
    /// The most bytes the source may have (`max_src_file_size`, `msfs`); 0 is no limit.
    public var maxSourceFileSize: Int?
    /// The most frames an animated source may have (`max_animation_frames`, `maf`).
    public var maxAnimationFrames: Int?
    /// The most pixels one frame of an animated source may have
    /// (`max_animation_frame_resolution`, `mafr`, in megapixels); when set, an animation
    /// is checked frame by frame against it instead of against ``maxSourceResolution``.
    /// 0 is no such limit.
    public var maxAnimationFrameResolution: Int?
    /// The largest width or height of the result (`max_result_dimension`, `mrd`): a larger
    /// result is scaled down to fit. 0 is no limit.
    public var maxResultDimension: Int?

    /// No limits of the URL's own.
    public init() {}

    /// Whether the URL sets no limit.
    public var isEmpty: Bool { self == URLSecurityLimits() }
}
