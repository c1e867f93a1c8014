/// A setting that cannot be used, with a message naming it and what to change.
public struct ServerConfigError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong and how to fix it.
    public var message: String

    /// Creates an error with `message`.
    public init(_ message: String) { self.message = message }

    /// The ``message``.
    public var description: String { message }
}
