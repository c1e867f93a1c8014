import ArgumentParser
import WebImage

/// `webimage`: fetch, cache and serve remote images on the WebImage pipeline.
@main
struct WebImageCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "webimage",
        abstract: "Fetch, cache, inspect and serve remote images.",
        version: WebImageVersion.current,
        subcommands: [ServeCommand.self]
    )
}
