/// The part of the server a ``ServerSetting`` configures; the settings page and
/// `webimage serve --help` list the settings section by section.
public enum SettingSection: String, Sendable, CaseIterable {
    /// Where the server listens and how it treats its client connections.
    case listen
    /// How URLs are signed and read.
    case signing
    /// Which sources are fetched, and how.
    case sources
    /// The limits on sources, results and the work in flight.
    case limits
    /// How images are encoded and which formats are served.
    case encoding
    /// The disk and memory caches and `Cache-Control`.
    case caching
    /// The headers of responses and conditional requests.
    case responses
    /// Metrics, logs and the profile of defaults.
    case operations
}
