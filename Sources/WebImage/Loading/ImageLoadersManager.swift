import Foundation

/// An ``ImageLoader`` that hands each URL to one of a list of loaders that can change at
/// run time: SDWebImage's `SDImageLoadersManager`, as ``ImageCodersManager`` is for coders.
///
/// Loaders are asked in reverse order of addition: the loader added last has the highest
/// priority, so a loader added at run time takes over the URLs it claims
/// (``ImageLoader/canLoad(_:)``) from the built-in ones. ``shared`` is the loader of
/// ``ImageManager/shared``, so adding a loader to it teaches every default manager a new
/// scheme:
///
/// ```swift
/// ImageLoadersManager.shared.addLoader(BundleLoader())   // bundle:///icons/star.png
/// let result = try await ImageManager.shared.loadImage(from: URL(string: "bundle:///icons/star.png"))
/// ```
///
/// The list can change at any time from any thread. Each call works on a snapshot taken
/// under a lock and calls the chosen loader without holding it, so a slow load never
/// blocks a change to the list, nor another load. ``ImageLoaders`` is the fixed chain to
/// use when the list never changes.
public final class ImageLoadersManager: ImageLoader {
    /// The process's shared manager: ``ImageDownloader/shared`` (`http`, `https`),
    /// ``FileLoader`` (`file`) and ``DataURLLoader`` (`data`). Changes to it affect every
    /// user of `shared`; a component that wants its own set of loaders makes its own manager.
    public static let shared = ImageLoadersManager()

    private let registry: PriorityRegistry<any ImageLoader>

    /// Creates a manager holding `loaders`, in order of addition: the last has the highest
    /// priority. By default it holds ``ImageDownloader/shared``, a ``FileLoader`` and a
    /// ``DataURLLoader``.
    public init(loaders: [any ImageLoader] = [ImageDownloader.shared, FileLoader(), DataURLLoader()]) {
        registry = PriorityRegistry(loaders)
    }

    /// The loaders, in order of addition: the last one is asked first. Setting it replaces
    /// the whole list.
    public var loaders: [any ImageLoader] {
        get { registry.entries }
        set { registry.replace(with: newValue) }
    }

    /// Adds `loader` with the highest priority: it is asked before every loader already held.
    public func addLoader(_ loader: any ImageLoader) {
        registry.add(loader)
    }

    /// Removes `loader`, compared by identity (every occurrence of that very object).
    /// Value-type loaders such as ``FileLoader`` have no identity: remove them with
    /// ``removeLoaders(ofType:)`` or ``removeLoaders(where:)``.
    public func removeLoader(_ loader: some ImageLoader & AnyObject) {
        registry.remove(identicalTo: loader)
    }

    /// Removes every loader of type `type` and returns how many were removed.
    @discardableResult
    public func removeLoaders<Loader: ImageLoader>(ofType type: Loader.Type) -> Int {
        removeLoaders { $0 is Loader }
    }

    /// Removes every loader for which `shouldRemove` returns `true` and returns how many
    /// were removed. `shouldRemove` runs while the list is locked: it must not call this
    /// manager.
    @discardableResult
    public func removeLoaders(where shouldRemove: (any ImageLoader) -> Bool) -> Int {
        registry.removeAll(where: shouldRemove)
    }

    // MARK: ImageLoader

    /// Whether any loader handles `url`.
    public func canLoad(_ url: URL) -> Bool {
        loader(for: url) != nil
    }

    /// Loads `url` with the highest-priority loader that handles it; throws
    /// ``ImageError/invalidURL(_:)`` when none does.
    public func load(
        _ url: URL,
        options: DownloadOptions,
        progress: (@Sendable (DownloadProgress) -> Void)?
    ) async throws(ImageError) -> DownloadResponse {
        guard let loader = loader(for: url) else {
            throw .invalidURL(url.absoluteString)
        }
        return try await loader.load(url, options: options, progress: progress)
    }

    private func loader(for url: URL) -> (any ImageLoader)? {
        registry.first { $0.canLoad(url) }
    }
}
