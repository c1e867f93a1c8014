import Tracing

/// The spans the library reports to the tracer bootstrapped in `InstrumentationSystem`
/// (cache lookups, downloads, decode, transform, encode, stores). With none bootstrapped
/// (the `NoOpTracer`) a step runs as it is: no span, no attribute is built.
enum LibrarySpans {
    /// The bootstrapped tracer; `nil` when it is the `NoOpTracer`.
    static var tracer: (any Tracer)? {
        let tracer = InstrumentationSystem.tracer
        return tracer is NoOpTracer ? nil : tracer
    }

    /// Runs `body` inside a span named `name`, a child of the task's current span; the
    /// span is current while `body` runs (so a download's `traceparent` names it) and gets
    /// an error status when `body` throws.
    static func run<Value, Failure: Error>(
        _ name: String, _ body: (any Span) async throws(Failure) -> Value
    ) async throws(Failure) -> Value {
        guard let tracer else { return try await body(NoOpTracer.NoOpSpan(context: .topLevel)) }
        let span: any Span = tracer.startSpan(name, context: ServiceContext.current ?? .topLevel, ofKind: .internal)
        defer { span.end() }
        let result: Result<Value, Failure> = await ServiceContext.$current.withValue(span.context) {
            do throws(Failure) {
                return .success(try await body(span))
            } catch {
                return .failure(error)
            }
        }
        if case .failure(let error) = result { fail(span, error) }
        return try result.get()
    }

    /// Runs `body` inside a span named `name`, a child of the span in `parent` (captured
    /// before the work left its task, e.g. for a thread pool).
    static func run<Value, Failure: Error>(
        _ name: String, parent: ServiceContext?, _ body: (any Span) throws(Failure) -> Value
    ) throws(Failure) -> Value {
        guard let parent, let tracer else { return try body(NoOpTracer.NoOpSpan(context: .topLevel)) }
        let span: any Span = tracer.startSpan(name, context: parent, ofKind: .internal)
        defer { span.end() }
        do throws(Failure) {
            return try body(span)
        } catch {
            fail(span, error)
            throw error
        }
    }

    /// The current service context when a tracer is bootstrapped, for work that leaves
    /// the task; `nil` otherwise.
    static var currentContext: ServiceContext? {
        tracer == nil ? nil : (ServiceContext.current ?? .topLevel)
    }

    private static func fail(_ span: any Span, _ error: any Error) {
        span.recordError(error)
        span.setStatus(SpanStatus(code: .error, message: "\(error)"))
    }
}
