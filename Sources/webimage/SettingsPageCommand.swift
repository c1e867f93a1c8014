import ArgumentParser
import Foundation
import WebImageServer

/// `webimage settings-page`: writes the table of docs/settings.md from the settings'
/// catalog (scripts/settings-page runs it). Hidden from the help: it is for the repository.
struct SettingsPageCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "settings-page",
        abstract: "Write the settings table of docs/settings.md from the settings' catalog.",
        shouldDisplay: false
    )

    @Flag(help: "Only say whether the page is up to date: exit 1 if not.") var check = false
    @Argument(help: "The page, docs/settings.md.") var page: String

    func run() throws {
        let text = try String(contentsOfFile: page, encoding: .utf8)
        guard let updated = SettingsPage.updating(text) else {
            throw ValidationError("\(page) has no '\(SettingsPage.begin)' and '\(SettingsPage.end)' lines around its table")
        }
        if check {
            guard updated == text else {
                Console.err("\(page) is not the settings' catalog: run scripts/settings-page")
                throw ExitCode(1)
            }
            return
        }
        try Data(updated.utf8).write(to: URL(fileURLWithPath: page))
    }
}
