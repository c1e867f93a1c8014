/// The colour profile an encoded image carries, and so the space its pixels are written in.
///
/// A browser shows an image with its profile, and an image without one as sRGB: the
/// default, ``sRGB``, writes pixels that mean the same to every reader.
public enum OutputColorProfile: Sendable, Hashable {
    /// sRGB, with no profile: an image that still carries another profile (decoded with
    /// ``ImageDecodeOptions/keepsColorProfile``) is converted to sRGB with it first. A
    /// profile that already is sRGB is metadata like the rest: kept or stripped with it.
    case sRGB
    /// The image's own profile, kept with its pixels unchanged, even when the rest of the
    /// metadata is stripped: for a request that decodes its source with
    /// ``ImageDecodeOptions/keepsColorProfile``, the source's profile. An image without
    /// one is written as sRGB.
    case source
    /// Converted to this profile (from the image's own, or from sRGB), which the output
    /// then carries.
    case profile(ICCProfile)

    /// A stable name for cache keys: `srgb`, `source`, or `icc:` and a digest of the profile.
    public var key: String {
        switch self {
        case .sRGB: "srgb"
        case .source: "source"
        case .profile(let profile): "icc:" + profile.digest
        }
    }
}
