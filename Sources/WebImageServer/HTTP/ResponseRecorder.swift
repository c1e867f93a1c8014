import Hummingbird
import Logging
import Tracing

/// Records each answer of the image routes where it is known, and makes what a client sees
/// of an error.
///
/// Where an image came from (`memory`, `disk`, `miss`) goes on the request's span as
/// `webimage.cache` when requests are traced, and into a `debug` log line with the status
/// and bytes. An error's full diagnostic is logged under the request's ID, which the response
/// carries (``ProxyError/response(from:context:)``); the client gets its kind's short text
/// unless development errors are on.
struct ResponseRecorder: Sendable {
    /// Whose status codes errors are answered with.
    let profile: ServerProfile
    /// Whether clients get an error's full diagnostic (``ServerConfig/Responses/developmentErrors``).
    let developmentErrors: Bool
    /// Whether requests have spans (Hummingbird's `TracingMiddleware` is installed).
    let tracesRequests: Bool

    /// Where the answer came from, on the request's span and in the `debug` log (`bytes` is
    /// read only when the line is logged).
    func record(status: HTTPResponse.Status, cache: CacheOutcome?, bytes: @autoclosure () -> String?, context: some RequestContext) {
        if tracesRequests, let span = InstrumentationSystem.tracer.activeSpan(identifiedBy: ServiceContext.current ?? .topLevel) {
            span.attributes["webimage.cache"] = cache?.rawValue ?? "-"
        }
        context.logger.debug("answered", metadata: [
            "status": "\(status.code)", "cache": "\(cache?.rawValue ?? "-")", "bytes": "\(bytes() ?? "0")",
        ])
    }

    /// `error` answered under the profile, recorded, and as the client may see it.
    func refused(_ error: ProxyError, context: some RequestContext) -> ProxyError {
        let answered = error.answered(under: profile)
        record(status: answered.status, cache: nil, bytes: "0", context: context)
        return disclosed(answered, context: context)
    }

    /// `error` as the client may see it: its kind's short text, unless development errors
    /// are on. The full diagnostic is logged under the request's ID.
    func disclosed(_ error: ProxyError, context: some RequestContext) -> ProxyError {
        let level: Logger.Level = error.status.code >= 500 ? .error : .warning
        context.logger.log(level: level, "\(error.status.code) \(error.kind.rawValue): \(error.message)")
        return developmentErrors ? error : error.withMessage(error.kind.rawValue)
    }
}
