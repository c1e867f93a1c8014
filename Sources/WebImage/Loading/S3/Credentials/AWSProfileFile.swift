import Foundation

/// One shared credentials or config file of the AWS tools, parsed: its profiles and their
/// `key = value` properties.
///
/// The credentials file names a profile `[name]`; the config file `[default]` or
/// `[profile name]`, besides sections of other kinds (`[sso-session …]`, `[services …]`),
/// which are skipped. Lines starting with `#` or `;` are comments; an indented line
/// continues the property above it (a nested setting) and is skipped too.
struct AWSProfileFile: Sendable {
    /// The file's path.
    let path: String
    /// The properties of each profile, keys lower-cased.
    let profiles: [String: [String: String]]

    /// Reads and parses the file at `path`; `nil` when there is no file there.
    /// - Parameter isConfig: whether it is a config file (`[profile name]` sections).
    /// - Throws: ``ImageError/credentialsUnavailable(_:)`` when it cannot be read or parsed.
    static func load(_ path: String, isConfig: Bool) throws(ImageError) -> AWSProfileFile? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw .credentialsUnavailable("the AWS \(isConfig ? "config" : "credentials") file \(path) cannot be read: \(error.localizedDescription)")
        }
        return try AWSProfileFile(text: String(decoding: data, as: UTF8.self), path: path, isConfig: isConfig)
    }

    /// Parses `text`, the contents of the file at `path`.
    /// - Throws: ``ImageError/credentialsUnavailable(_:)`` naming the line that is neither a
    ///   section, a property, a comment nor a continuation.
    init(text: String, path: String, isConfig: Bool) throws(ImageError) {
        self.path = path
        var profiles: [String: [String: String]] = [:]
        // The profile of the current section; `nil` in a section that is not a profile's.
        var current: String?
        var inSection = false
        for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = rawLine.trimmingCharacters(in: .whitespacesAndNewlines)
            if line.isEmpty || line.hasPrefix("#") || line.hasPrefix(";") { continue }
            let problem = { (what: String) -> ImageError in
                .credentialsUnavailable("line \(index + 1) of the AWS \(isConfig ? "config" : "credentials") file \(path) \(what); fix or remove it")
            }
            if line.hasPrefix("[") {
                guard let close = line.firstIndex(of: "]") else { throw problem("opens a section without closing it with ']'") }
                let name = line[line.index(after: line.startIndex)..<close].trimmingCharacters(in: .whitespaces)
                guard !name.isEmpty else { throw problem("names an empty section '[]'") }
                inSection = true
                current = Self.profileName(ofSection: name, isConfig: isConfig)
                if let current, profiles[current] == nil { profiles[current] = [:] }
                continue
            }
            if rawLine.first == " " || rawLine.first == "\t" { continue }
            guard let equals = line.firstIndex(of: "=") else { throw problem("is neither '[section]' nor 'key = value'") }
            guard inSection else { throw problem("sets '\(line[..<equals].trimmingCharacters(in: .whitespaces))' before any '[section]'") }
            let key = line[..<equals].trimmingCharacters(in: .whitespaces).lowercased()
            guard !key.isEmpty else { throw problem("has a value without a key") }
            let value = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            if let current { profiles[current, default: [:]][key] = value }
        }
        self.profiles = profiles
    }

    /// The profile a section header names: `name` in a credentials file; `default` or
    /// `profile name` in a config file; `nil` for a section of another kind.
    private static func profileName(ofSection section: String, isConfig: Bool) -> String? {
        guard isConfig else { return section }
        if section == "default" { return section }
        let parts = section.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0] == "profile" else { return nil }
        return parts[1].trimmingCharacters(in: .whitespaces)
    }
}
