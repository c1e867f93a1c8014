import ArgumentParser
import WebImageServer

/// The settings `webimage serve` runs with, read as it reads them: the profile, then weakest
/// first `PORT`, `HTTP_PROXY` and friends, `IMGPROXY_*`, `WEBIMAGE_*` and the flags.
struct ServeSettings {
    /// The settings, not yet checked together (the server checks them as it is built).
    var config: ServerConfig
    /// The profile the defaults came from.
    let profile: ServerProfile
    /// What `--imgproxy-defaults` or its variable said, if either was given.
    let profileChoice: Bool?
    /// The `IMGPROXY_*` variables set that WebImage does not apply.
    let unknownImgproxySettings: [String]

    /// Reads `arguments` (serve's settings flags) and `environment`.
    /// - Throws: `ValidationError` naming the first setting that cannot be read.
    init(arguments settings: [String], environment: [String: String]) throws {
        do {
            let arguments = try ServerSettingArguments(settings)
            var choice = try arguments.boolean(.imgproxyDefaults)
            if choice == nil {
                choice = try ServerSetting.boolean(named: ServerSetting.imgproxyDefaults.environmentName, in: environment)
            }
            profileChoice = choice
            profile = ServerProfile.chosen(environment: environment, imgproxyDefaults: choice)
            config = profile.defaults
            try config.listen.readPlatformPort(environment)
            config.sources.readStandardProxyVariables(environment)
            unknownImgproxySettings = try ImgproxyEnvironment.apply(environment, to: &config)
            try ServerSetting.apply(environment: environment, to: &config)
            try arguments.apply(to: &config)
            config.sources.s3Environment = environment.filter { $0.key.hasPrefix("AWS_") }
            config.sources.s3HomeDirectory = environment["HOME"]
        } catch {
            throw ValidationError(error.message)
        }
    }
}
