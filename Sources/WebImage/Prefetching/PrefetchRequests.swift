import Foundation

/// The requests of one prefetch, in order: given as they are, or made from URLs as each
/// load starts (a URL whose request cannot be made fails in the prefetch with the error).
struct PrefetchRequests: Sendable {
    /// The URL of each request, in order.
    let urls: [URL]
    /// The SDWebImage-shaped settings the requests are made with; `nil` for requests given
    /// as they are.
    let settings: SDWebImagePrefetchSettings?
    private let make: @Sendable (Int) throws(ImageError) -> ImageRequest
    private let recipe: PrefetchLoadKey.Recipe?

    /// `requests` as they are.
    init(_ requests: [ImageRequest]) {
        urls = requests.map(\.url)
        settings = nil
        make = { index in requests[index] }
        recipe = nil
    }

    /// The requests `make` makes from `urls` (with `settings`), `recipe` naming it for the
    /// loads' keys. `make` holds what `recipe` names alive.
    init(
        urls: [URL], settings: SDWebImagePrefetchSettings, recipe: PrefetchLoadKey.Recipe,
        make: @escaping @Sendable (URL) throws(ImageError) -> ImageRequest
    ) {
        self.urls = urls
        self.settings = settings
        self.make = { index throws(ImageError) in try make(urls[index]) }
        self.recipe = recipe
    }

    /// Whether there are none.
    var isEmpty: Bool { urls.isEmpty }

    /// The request at `index`, with the key under which its load is shared.
    func request(at index: Int) -> Result<(ImageRequest, PrefetchLoadKey), ImageError> {
        do throws(ImageError) {
            let request = try make(index)
            return .success((request, PrefetchLoadKey(request, recipe: recipe)))
        } catch {
            return .failure(error)
        }
    }
}
