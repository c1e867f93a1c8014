import Foundation
import Testing
import WebImageServer
import WebImageTestSupport

/// docs/settings.md against the code: its table is the one the settings' catalog writes
/// (`scripts/settings-page`), with one row for each ``ServerSetting`` with its flag and
/// `WEBIMAGE_*` variable, no flag that `webimage serve` does not accept, and `IMGPROXY_*`
/// names that the server applies, to the settings docs/imgproxy.md says they set.
@Suite("docs/settings.md")
struct SettingsPageTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// One row of the settings table.
    struct Row {
        let flags: [String]
        let variable: String
        let imgproxyVariables: [String]
    }

    /// The table's rows: the lines starting `| \`--`.
    static func rows() throws -> [Row] {
        let page = try String(contentsOf: root.appending(path: "docs/settings.md"), encoding: .utf8)
        return page.split(separator: "\n").filter { $0.hasPrefix("| `--") }.map { line in
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            return Row(
                flags: flagNames(in: cells[1]),
                variable: cells[2].trimmingCharacters(in: CharacterSet(charactersIn: "`")),
                imgproxyVariables: cells[3].matches(of: /IMGPROXY_[A-Z0-9_]+/).map { String($0.output) }
            )
        }
    }

    /// The flags written in `text`, without their dashes and without `[no-]`.
    static func flagNames(in text: some StringProtocol) -> [String] {
        String(text).matches(of: /--(?:\[no-\])?([a-z0-9][a-z0-9-]*)/).map { String($0.output.1) }
    }

    @Test("the tables of docs/settings.md and docs/imgproxy.md are the ones the settings' catalog writes", arguments: [
        ("docs/settings.md", "settings"), ("docs/imgproxy.md", "imgproxy-variables"),
    ])
    func tableIsGenerated(path: String, table: String) throws {
        let page = try String(contentsOf: Self.root.appending(path: path), encoding: .utf8)
        #expect(page.contains(SettingsPage.begin(table)) && page.contains(SettingsPage.end(table)), "\(path) has no \(table) table")
        let updated = try #require(SettingsPage.updating(page), "\(path) has no generated table")
        #expect(updated == page, "\(path) differs from the settings' catalog: run scripts/settings-page")
    }

    @Test("every setting has one row, with its flag and its WEBIMAGE_* variable")
    func everySettingHasARow() throws {
        let rows = try Self.rows()
        for setting in ServerSetting.allCases {
            let matching = rows.filter { $0.flags.contains(setting.flag) }
            #expect(matching.count == 1, "--\(setting.flag) has \(matching.count) rows in docs/settings.md; it needs one")
            if let row = matching.first {
                #expect(row.variable == setting.environmentName, "--\(setting.flag): the page says \(row.variable), the code reads \(setting.environmentName)")
            }
        }
    }

    @Test("every flag in the table is one webimage serve accepts, and every flag it accepts is in the table")
    func flagsMatchTheCommand() throws {
        let help = try Self.serveHelp()
        let accepted = Set(Self.flagNames(in: help)).subtracting(["help", "version"])
        let inversions = Set(accepted.filter { $0.hasPrefix("no-") && accepted.contains(String($0.dropFirst(3))) })
        let documented = try Self.rows().flatMap(\.flags)
        for flag in documented {
            #expect(accepted.contains(flag), "docs/settings.md names --\(flag), which webimage serve does not accept")
        }
        for flag in accepted.subtracting(inversions) {
            #expect(documented.contains(flag), "webimage serve accepts --\(flag), which docs/settings.md does not list")
        }
        #expect(Set(documented).count == documented.count, "a flag has more than one row")
    }

    @Test("the imgproxy variables are ones the server applies, in the rows docs/imgproxy.md names")
    func imgproxyVariables() throws {
        let rows = try Self.rows()
        let applied = ImgproxyEnvironment.appliedNames
        let named = Set(rows.flatMap(\.imgproxyVariables))
        for name in named {
            #expect(applied.contains(name), "docs/settings.md names \(name), which the server does not apply")
        }
        // imgproxy's OpenTelemetry variables are read with the OTEL_* variables, not into a
        // setting: docs/operations.md names them where it lists those.
        let telemetry = Set(ImgproxyEnvironment.readElsewhere.keys)
        #expect(telemetry.count == 8)
        let operations = try String(contentsOf: Self.root.appending(path: "docs/operations.md"), encoding: .utf8)
        for name in telemetry {
            #expect(applied.contains(name) && operations.contains("`\(name)`"), "\(name) is applied and docs/operations.md names it")
        }
        for name in applied.subtracting(telemetry) {
            #expect(named.contains(name), "the server applies \(name), which docs/settings.md does not name")
        }
        // docs/imgproxy.md's applied rows: `| `IMGPROXY_X` | ✓ | `--flag`… |`.
        let imgproxyPage = try String(contentsOf: Self.root.appending(path: "docs/imgproxy.md"), encoding: .utf8)
        for line in imgproxyPage.split(separator: "\n") where line.hasPrefix("| `IMGPROXY_") && line.contains("| ✓ |") {
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            let name = cells[1].trimmingCharacters(in: CharacterSet(charactersIn: "`"))
            for flag in Self.flagNames(in: cells[3]) {
                let row = rows.first { $0.flags.contains(flag) }
                #expect(row?.imgproxyVariables.contains(name) == true, "docs/imgproxy.md says \(name) sets --\(flag); its row in docs/settings.md does not name it")
            }
        }
    }

    /// `webimage serve --help`, from the built executable.
    static func serveHelp() throws -> String {
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: try BuiltExecutables.path(of: "webimage"))
        process.arguments = ["serve", "--help"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }
}
