import Synchronization

/// The client connections open at once, against a cap: a connection is admitted while
/// fewer than ``limit`` are open, and counts until it closes.
final class ClientConnections: Sendable {
    /// Connections open at once, at most.
    let limit: Int
    private let open = Atomic<Int>(0)

    /// A count with room for `limit` connections.
    init(limit: Int) {
        self.limit = limit
    }

    /// Connections open now.
    var count: Int { open.load(ordering: .relaxed) }

    /// Counts a new connection when there is room for it; `false` (and nothing counted)
    /// when ``limit`` are open already.
    func admit() -> Bool {
        let (_, now) = open.add(1, ordering: .relaxed)
        guard now > limit else { return true }
        open.subtract(1, ordering: .relaxed)
        return false
    }

    /// Uncounts an admitted connection that closed.
    func release() {
        open.subtract(1, ordering: .relaxed)
    }
}
