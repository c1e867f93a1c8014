import ArgumentParser
import Foundation
import WebImage

/// `webimage`: fetch, cache and serve remote images on the WebImage pipeline.
@main
struct WebImageCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "webimage",
        abstract: "Fetch, cache, inspect and serve remote images.",
        discussion: "Every command runs on the WebImage library's pipeline and default cache ($XDG_CACHE_HOME/webimage, else ~/.cache/webimage).",
        version: WebImageVersion.current,
        subcommands: [
            FetchCommand.self,
            PrefetchCommand.self,
            InfoCommand.self,
            CacheCommand.self,
            RefreshCommand.self,
            HealthCommand.self,
            ServeCommand.self,
            SettingsPageCommand.self,
        ]
    )

    /// Parses and runs a command. Help and version go to standard output; a usage error is
    /// one line on standard error (what is wrong and how to fix it, then where the help
    /// is) with exit status 64; a command's own failures were already reported by it.
    static func main() async {
        do {
            var command = try parseAsRoot()
            if var command = command as? any AsyncParsableCommand {
                try await command.run()
            } else {
                try command.run()
            }
        } catch {
            let code = exitCode(for: error)
            if code == .success || error is ExitCode {
                exit(withError: error)
            }
            let help = helpCommand(for: CommandLine.arguments)
            Console.err("webimage: error: \(message(for: error)) (see '\(help) --help')")
            exit(withError: ExitCode(code.rawValue))
        }
    }

    /// `webimage <subcommand…>` for the subcommands named at the start of `arguments`.
    private static func helpCommand(for arguments: [String]) -> String {
        var words = ["webimage"]
        var commands: [any ParsableCommand.Type] = configuration.subcommands
        for argument in arguments.dropFirst() {
            guard let match = commands.first(where: { $0.configuration.commandName == argument }) else { break }
            words.append(argument)
            commands = match.configuration.subcommands
        }
        return words.joined(separator: " ")
    }
}
