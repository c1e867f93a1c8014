import Foundation

/// An object that shows images loaded by an ``ImageManager``: the counterpart of
/// SDWebImage's `UIImageView+WebCache`, for any class on any platform.
///
/// A conformer says how an image is put on it (``apply(_:update:)``); the extension gives
/// it ``setImage(_:placeholder:options:progress:completed:)``, which loads an
/// ``ImageRequest`` through the manager, shows a placeholder, cancels the object's previous
/// load for the same operation key (``ImageTargetOptions``), and puts the result on the
/// object:
///
///     final class Tile: ImageTarget {
///         private let shown = Mutex<Image?>(nil)
///         func apply(_ image: Image?, update: ImageTargetUpdate) {
///             shown.withLock { $0 = image }
///         }
///     }
///     tile.setImage(ImageRequest(url: url), placeholder: grey)
///
/// SDWebImage's shape of the call is ``setImage(with:placeholder:options:context:progress:completed:)``.
///
/// ## Threads
///
/// The binding is not tied to an actor. ``apply(_:update:)`` runs on the thread that
/// produced the change: the placeholder and a memory hit on the caller's thread before
/// `setImage` returns, a loaded image on the thread that completed the load. Calls for
/// one object never overlap, and a load that was superseded by a newer `setImage` (or
/// cancelled) never reaches ``apply(_:update:)`` once the newer call began, whatever the
/// timing: each call holds the object's binding lock. So `apply` must be quick and must
/// not call `setImage` or `cancelCurrentImageLoad` on the same object (that would
/// deadlock); reading ``currentImageURL`` or ``currentProgress`` is fine. An object that
/// must be updated on one actor hops there itself, e.g.
/// `Task { @MainActor in view.image = image }`, and compares
/// ``ImageTargetUpdate/url`` with ``currentImageURL`` when it gets there — or names an
/// ``ImageCallbackExecutor`` for the toolkit's main loop (``ImageRequest/callbackExecutor``),
/// and every `apply` runs there instead.
///
/// Per-object state (the running load of each operation key, the current URL and
/// progress) lives in a side table keyed by the object's identity and holding it weakly;
/// entries of objects that are gone are dropped. A load whose object is gone is
/// cancelled at its next progress report, and its result is put on nothing.
public protocol ImageTarget: AnyObject, Sendable {
    /// Puts `image` on the object: the placeholder (possibly `nil`), a partial image of a
    /// progressive load, or the loaded image. See the type's "Threads" section for where
    /// this runs.
    func apply(_ image: Image?, update: ImageTargetUpdate)

    /// The manager that loads this object's images. Default ``ImageManager/shared``.
    var imageManager: ImageManager { get }
}

extension ImageTarget {
    /// The shared manager.
    public var imageManager: ImageManager { .shared }
}
