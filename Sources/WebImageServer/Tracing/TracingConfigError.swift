/// An `OTEL_*` variable whose value cannot be used; ``message`` names it.
public struct TracingConfigError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The variable, e.g. `OTEL_EXPORTER_OTLP_PROTOCOL`.
    public let variable: String
    /// What is wrong and what would do, naming the variable.
    public let message: String

    init(_ variable: String, _ problem: String) {
        self.variable = variable
        self.message = "\(variable): \(problem)"
    }

    /// The ``message``.
    public var description: String { message }
}
