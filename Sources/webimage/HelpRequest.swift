/// Whether this run of the tool asks for help, read from its arguments before they are parsed.
enum HelpRequest {
    /// The arguments that make ArgumentParser print a command's help.
    static let helpArguments: Set<String> = ["-h", "--help", "help", "--experimental-dump-help"]

    /// True when any argument asks for help.
    static let isAsked = CommandLine.arguments.dropFirst().contains { helpArguments.contains($0) }
}
