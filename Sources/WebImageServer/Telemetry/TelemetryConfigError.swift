/// An `OTEL_*` variable whose value cannot be used, or an exporter that cannot start;
/// ``message`` names the variable and what would do.
public struct TelemetryConfigError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The variable, e.g. `OTEL_EXPORTER_OTLP_PROTOCOL`; empty when no one variable is at fault.
    public let variable: String
    /// What is wrong and what would do, naming the variable.
    public let message: String

    init(_ variable: String, _ problem: String) {
        self.variable = variable
        self.message = variable.isEmpty ? problem : "\(variable): \(problem)"
    }

    /// The ``message``.
    public var description: String { message }
}
