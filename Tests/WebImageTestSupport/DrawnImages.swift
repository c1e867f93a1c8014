import WebImage
import WebImageLocking

/// The images ``TestImages`` has drawn, by a name of their parameters: many tests draw the
/// same few, and drawing one pixel by pixel in a debug build costs more than the test.
/// An image is immutable, so every test can share one.
package final class DrawnImages: Sendable {
    private let images = InlineLocked<[String: Image]>([:])

    package init() {}

    /// The image drawn for `name`, drawing it with `draw` the first time.
    package func image(for name: String, draw: () throws -> Image) rethrows -> Image {
        if let image = images.withLock({ $0[name] }) { return image }
        // Drawn outside the lock: two tests may both draw it once, and either copy will do.
        let image = try draw()
        images.withLock { $0[name] = image }
        return image
    }
}

extension TestImages {
    /// The images drawn so far.
    static let drawn = DrawnImages()
}
