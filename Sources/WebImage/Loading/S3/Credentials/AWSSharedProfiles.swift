import Foundation

/// The profiles of the shared credentials and config files the AWS tools write: the
/// credentials file (`AWS_SHARED_CREDENTIALS_FILE`, default `~/.aws/credentials`) and the
/// config file (`AWS_CONFIG_FILE`, default `~/.aws/config`), and the profile in use
/// (`AWS_PROFILE`, default `default`). A property set in both files is the credentials file's.
struct AWSSharedProfiles: Sendable {
    /// The profile in use.
    let profileName: String
    /// Whether `AWS_PROFILE` names it (then it must exist).
    let isNamed: Bool
    /// The files that exist, the credentials file first.
    let files: [AWSProfileFile]
    /// The paths looked at, the credentials file first.
    let paths: [String]

    /// Reads the files the variables of `environment` and `homeDirectory` name.
    /// - Throws: ``ImageError/credentialsUnavailable(_:)`` when a file cannot be read or parsed.
    init(environment: [String: String], homeDirectory: String?) throws(ImageError) {
        let variables = AWSEnvironment(environment)
        let homeDirectory = homeDirectory.flatMap { $0.isEmpty ? nil : $0 }
        func path(_ variable: String, default relative: String) -> String? {
            if let given = variables[variable] { return Self.expandingTilde(given, homeDirectory: homeDirectory) }
            return homeDirectory.map { ($0 as NSString).appendingPathComponent(relative) }
        }
        let credentialsPath = path("AWS_SHARED_CREDENTIALS_FILE", default: ".aws/credentials")
        let configPath = path("AWS_CONFIG_FILE", default: ".aws/config")
        var files: [AWSProfileFile] = []
        if let credentialsPath, let file = try AWSProfileFile.load(credentialsPath, isConfig: false) { files.append(file) }
        if let configPath, let file = try AWSProfileFile.load(configPath, isConfig: true) { files.append(file) }
        self.files = files
        self.paths = [credentialsPath, configPath].compactMap { $0 }
        self.profileName = variables["AWS_PROFILE"] ?? "default"
        self.isNamed = variables["AWS_PROFILE"] != nil
    }

    /// The file that has the profile in use, the credentials file first.
    var profileFile: AWSProfileFile? {
        files.first { $0.profiles[profileName] != nil }
    }

    /// The property `key` of the profile in use, and the file it is set in.
    func property(_ key: String) -> (value: String, file: String)? {
        for file in files {
            if let value = file.profiles[profileName]?[key], !value.isEmpty { return (value, file.path) }
        }
        return nil
    }

    /// The profile's region (`region`), if it sets one.
    var region: String? { property("region")?.value }

    /// The profile in use exists in neither file, though `AWS_PROFILE` names it.
    var missingNamedProfile: ImageError? {
        guard isNamed, profileFile == nil else { return nil }
        let looked = paths.isEmpty ? "no credentials or config file (no home directory)" : paths.joined(separator: " and ")
        return .credentialsUnavailable("AWS_PROFILE names the profile '\(profileName)', which is in neither \(looked); add it, or unset AWS_PROFILE")
    }

    /// `~/…` with the home directory for `~`.
    static func expandingTilde(_ path: String, homeDirectory: String?) -> String {
        guard let homeDirectory, path == "~" || path.hasPrefix("~/") else { return path }
        return homeDirectory + path.dropFirst()
    }
}
