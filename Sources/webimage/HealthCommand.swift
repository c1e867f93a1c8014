import ArgumentParser
import Foundation
import WebImage
import WebImageServer

/// `webimage health [URL]`: asks a running proxy whether it is up, for a container's health
/// check (`HEALTHCHECK CMD webimage health`); exits 0 when it answers 200, 1 otherwise.
struct HealthCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "health",
        abstract: "Ask a running proxy whether it is up: exit 0 when its /health answers 200, 1 otherwise.",
        discussion: """
            Without a URL, the proxy is the one `webimage serve` would start with this environment \
            (PORT, IMGPROXY_BIND, IMGPROXY_PATH_PREFIX, WEBIMAGE_PORT…), on the loopback address when \
            it listens on every interface. A URL naming only a server gets /health.
            """
    )

    @Argument(help: "The proxy, e.g. http://127.0.0.1:8080, or its health check's URL.")
    var url: String?

    @Option(help: "Seconds to wait for the answer.")
    var timeout: Double = 5

    func validate() throws {
        guard timeout > 0, timeout.isFinite else { throw ValidationError("--timeout must be a number of seconds above 0, not \(timeout)") }
    }

    func run() async throws {
        let target: String
        do {
            target = try url.map(ProxyHealthCheck.url(from:))
                ?? ProxyHealthCheck.url(for: ServeSettings(arguments: [], environment: ProcessInfo.processInfo.environment).config.listen)
        } catch let error as ImageError {
            throw ValidationError(error.description)
        }
        let answer: ProxyHealthCheck.Answer
        do {
            answer = try await ProxyHealthCheck.check(target, timeout: .milliseconds(Int(timeout * 1000)))
        } catch {
            Console.err("webimage: \(error.description)")
            throw ExitCode(1)
        }
        let body = answer.body.trimmingCharacters(in: .whitespacesAndNewlines)
        guard answer.isHealthy else {
            Console.err("webimage: \(answer.url) answered \(answer.status): \(body)")
            throw ExitCode(1)
        }
        Console.out("\(answer.url) answered \(answer.status): \(body)")
    }
}
