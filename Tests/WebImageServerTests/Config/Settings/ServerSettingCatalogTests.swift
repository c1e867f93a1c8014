@testable import WebImageServer
import Testing

/// The settings' catalog: names derived once and unique, every `IMGPROXY_*` name read, the
/// defaults of imgproxy's profile readable, and one message for a value out of range.
@Suite("The settings' catalog")
struct ServerSettingCatalogTests {
    @Test("flags, WEBIMAGE_* and IMGPROXY_* names are unique, and the flag and variable are derived from the name")
    func names() {
        let settings = ServerSetting.allCases
        #expect(Set(settings.map(\.flag)).count == settings.count)
        #expect(Set(settings.map(\.environmentName)).count == settings.count)
        #expect(Set(settings.map(\.name)).count == settings.count)
        #expect(ServerSetting.maxClientsPerAddress.flag == "max-clients-per-address")
        #expect(ServerSetting.maxClientsPerAddress.environmentName == "WEBIMAGE_MAX_CLIENTS_PER_ADDRESS")
        #expect(ServerSetting.autoWebP.environmentName == "WEBIMAGE_AUTO_WEBP")
        #expect(ServerSetting.s3AllowedBucket.environmentName == "WEBIMAGE_S3_ALLOWED_BUCKETS")
        #expect(ServerSetting.preset.environmentName == "WEBIMAGE_PRESETS")
        for section in SettingSection.allCases {
            #expect(settings.contains { $0.section == section }, "\(section) has no setting")
        }
    }

    @Test("every IMGPROXY_* name a setting reads with a reader of its own has that reader")
    func ownReaders() {
        for setting in ServerSetting.allCases {
            for name in setting.imgproxyNames where name.reading == .own {
                #expect(ImgproxyEnvironment.ownReaders[name.name] != nil, "\(setting): \(name.name) has no reader")
            }
        }
        for name in ImgproxyEnvironment.ownReaders.keys {
            #expect(ImgproxyEnvironment.appliedNames.contains(name), "\(name) is read but no setting names it")
        }
    }

    @Test("imgproxy's profile starts from each setting's imgproxy default")
    func imgproxyDefaults() {
        let config = ServerProfile.imgproxy.defaults
        #expect(config.listen.host == "0.0.0.0" && config.sources.allowPrivate && !config.encoding.autoWebP && !config.encoding.autoAVIF)
        #expect(config.encoding.preferredFormats == [.jpeg, .png, .gif] && config.limits.maxAnimationFrames == 1)
        #expect(config.encoding.jpegShrinkOnLoad == .toTarget && config.limits.maxResultDimension == ServerProfile.unboundedResultDimension)
        #expect(config.encoding.keepCopyright && config.encoding.formatQuality == [.webp: 79, .avif: 63, .jxl: 77] && config.encoding.avifSpeed == 8)
        #expect(config.sources.downloadTimeout == .seconds(5) && config.limits.requestTimeout == .seconds(10) && config.responses.validators == .source)
        #expect(config.listen.maxClientsPerAddress == 0 && config.sources.sourceKeepAliveTimeout == .seconds(90))
        let webimage = ServerProfile.webimage.defaults
        for setting in ServerSetting.allCases where setting.imgproxyDefault != nil {
            var read = webimage
            #expect(throws: Never.self, "\(setting)") { try setting.apply(setting.imgproxyDefault ?? [], to: &read) }
        }
    }

    @Test("a value out of range has one message, read or checked", arguments: [
        (ServerSetting.autoQualityTarget, "1.2", \ServerConfig.encoding.autoQualityTarget, 1.2),
        (ServerSetting.watermarkOpacity, "1.5", \ServerConfig.encoding.watermarkOpacity, 1.5),
    ])
    func oneRangeMessage(setting: ServerSetting, text: String, field: WritableKeyPath<ServerConfig, Double> & Sendable, value: Double) {
        var read = ServerConfig()
        var readError: ServerConfigError?
        do { try setting.apply([text], to: &read) } catch { readError = error }
        var checked = ServerConfig()
        checked[keyPath: field] = value
        var checkError: ServerConfigError?
        do { try checked.validate() } catch { checkError = error }
        #expect(readError != nil && readError == checkError, "\(String(describing: readError)) / \(String(describing: checkError))")
        #expect(readError?.message.contains(setting.names) == true)
    }

    @Test("each setting's own check names it")
    func ownChecks() {
        let changes: [(ServerSetting, (inout ServerConfig) -> Void)] = [
            (.sourceKeepAliveTimeout, { $0.sources.sourceKeepAliveTimeout = .seconds(-1) }),
            (.downloadTimeout, { $0.sources.downloadTimeout = .zero }),
            (.bestFormats, { $0.encoding.bestFormats = [] }),
            (.etagBuster, { $0.responses.etagBuster = "a b" }),
            (.cacheDir, { $0.caching.cacheDirectory = "" }),
        ]
        for (setting, change) in changes {
            var config = ServerConfig()
            change(&config)
            var message: String?
            do { try config.validate() } catch { message = error.message }
            #expect(message?.hasSuffix("(\(setting.names))") == true, "\(setting): \(message ?? "accepted")")
        }
    }

    @Test("the flags of webimage serve are read through the catalog")
    func arguments() throws {
        let arguments = try ServerSettingArguments([
            "--port", "0", "--bind=0.0.0.0", "--no-auto-webp", "--key", "a1", "--key", "b2", "--no-proxy", "example.com", "--use-etag",
        ])
        var config = ServerConfig()
        try arguments.apply(to: &config)
        #expect(config.listen.port == 0 && config.listen.host == "0.0.0.0" && !config.encoding.autoWebP && config.responses.useETag)
        #expect(config.signing.keys == ["a1", "b2"] && config.sources.noProxy == "example.com")
        #expect(throws: ServerConfigError.self) { try ServerSettingArguments(["--no-such-setting", "1"]) }
        #expect(throws: ServerConfigError.self) { try ServerSettingArguments(["--port"]) }
        #expect(throws: ServerConfigError.self) { try ServerSettingArguments(["8080"]) }
        #expect(throws: ServerConfigError.self) { try ServerSettingArguments(["--use-etag=yes"]) }
    }

    @Test("every setting's flag reaches its setting")
    func everyFlagIsRead() throws {
        for setting in ServerSetting.allCases {
            let arguments = try ServerSettingArguments(setting.kind == .bool ? ["--no-" + setting.flag] : ["--" + setting.flag, "x"])
            #expect(arguments.values[setting] == [setting.kind == .bool ? "false" : "x"], "\(setting)")
        }
    }
}
