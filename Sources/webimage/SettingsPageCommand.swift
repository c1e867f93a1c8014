import ArgumentParser
import Foundation
import WebImageServer

/// `webimage settings-page`: writes the tables of docs/settings.md and docs/imgproxy.md
/// from the settings' catalog (scripts/settings-page runs it). Hidden from the help: it is
/// for the repository.
struct SettingsPageCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "settings-page",
        abstract: "Write the tables of a page (docs/settings.md, docs/imgproxy.md) from the settings' catalog.",
        shouldDisplay: false
    )

    @Flag(help: "Only say whether the page is up to date: exit 1 if not.") var check = false
    @Argument(help: "The pages.") var pages: [String]

    func run() throws {
        var stale: [String] = []
        for page in pages {
            let text = try String(contentsOfFile: page, encoding: .utf8)
            guard let updated = SettingsPage.updating(text) else {
                throw ValidationError("\(page) has no table between '\(SettingsPage.begin("<name>"))' and '\(SettingsPage.end("<name>"))' lines")
            }
            guard updated != text else { continue }
            if check {
                stale.append(page)
            } else {
                try Data(updated.utf8).write(to: URL(fileURLWithPath: page))
            }
        }
        if !stale.isEmpty {
            Console.err("\(stale.joined(separator: ", ")) differ from the settings' catalog: run scripts/settings-page")
            throw ExitCode(1)
        }
    }
}
