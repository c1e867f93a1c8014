/// What an image target's `setImage` does with the object besides loading its request:
/// under which key it keeps the load, whether it cancels the object's previous load,
/// when it shows the placeholder, and whether it puts the loaded images on the object.
///
/// The defaults are what an image view wants: the newest load of the object replaces the
/// one before, the placeholder shows until the image arrives, and the image is put on the
/// object.
///
///     // A second image of the same object (a highlighted state), loaded beside the first.
///     let highlighted = ImageTargetOptions(operationKey: "highlighted")
///     button.setImage(request, placeholder: grey, options: highlighted)
public struct ImageTargetOptions: Sendable, Hashable {
    /// When the placeholder is put on the object.
    public enum PlaceholderTiming: Sendable, Hashable {
        /// Before `setImage` returns (or, with a callback executor, first on it), until an
        /// image of the load replaces it.
        case atStart
        /// Only when the load fails before any image of it was put on the object
        /// (SDWebImage's `delayPlaceholder`); a cancelled load shows nothing.
        case onFailure
    }

    /// The key the object keeps this load under: a newer load under the same key
    /// supersedes it, and loads under different keys (two images of one object) run side
    /// by side. Default ``ImageTargetUpdate/defaultOperationKey``.
    public var operationKey: String
    /// Whether `setImage` cancels the object's running load under the same key (default):
    /// it completes with ``ImageError/cancelled``. `false` lets it run on and complete,
    /// but it puts nothing more on the object (SDWebImage's `avoidAutoCancelImage`).
    public var cancelsPreviousLoad: Bool
    /// When the placeholder is shown. Default ``PlaceholderTiming/atStart``.
    public var placeholderTiming: PlaceholderTiming
    /// Whether the loaded images (partial ones included) are put on the object (default).
    /// `false` leaves the object as it is and hands the images to `completed` only
    /// (SDWebImage's `avoidAutoSetImage`); the placeholder still shows.
    public var appliesImages: Bool

    /// Creates target options; by default those of an image view: the default operation
    /// key, the previous load cancelled, the placeholder at the start, the images applied.
    public init(
        operationKey: String = ImageTargetUpdate.defaultOperationKey,
        cancelsPreviousLoad: Bool = true,
        placeholderTiming: PlaceholderTiming = .atStart,
        appliesImages: Bool = true
    ) {
        self.operationKey = operationKey
        self.cancelsPreviousLoad = cancelsPreviousLoad
        self.placeholderTiming = placeholderTiming
        self.appliesImages = appliesImages
    }
}
