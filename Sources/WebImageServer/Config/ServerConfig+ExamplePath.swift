import Foundation

extension ServerConfig {
    /// The image `webimage serve` offers as an example when a local file-system root is set.
    public static let exampleFileName = "sample.jpg"

    /// A proxy path that works with this configuration, for the start-up message: a 300×300
    /// fit of `local:///sample.jpg` (or of the first image at the top of the local root)
    /// when a local root is configured, else of an image on the internet; signed with the
    /// first key pair when URLs are signed; through the first preset in only-presets mode.
    public func examplePath() -> String {
        let source = exampleLocalFile().map { "local:///" + $0 } ?? "https://www.libvips.org/images/owl.jpg"
        let options = signing.onlyPresets ? (signing.presets.keys.sorted().first ?? "default") : "rs:fit:300:300"
        let path = "/\(options)/plain/\(source)"
        guard let key = (try? signing.signingKeys())?.first else { return "/insecure" + path }
        return "/" + ProxyURLParser.signature(for: path, key: key, signatureSize: signing.signatureSize) + path
    }

    /// `sample.jpg` or else the first JPEG, PNG, WebP or GIF file at the top of the local root.
    private func exampleLocalFile() -> String? {
        guard let root = sources.localFilesystemRoot, !root.isEmpty,
              let names = try? FileManager.default.contentsOfDirectory(atPath: root)
        else { return nil }
        if names.contains(Self.exampleFileName) { return Self.exampleFileName }
        let images = Set(["jpg", "jpeg", "png", "webp", "gif"])
        return names.sorted().first { name in
            // Only names a plain source can carry as they are.
            images.contains((name as NSString).pathExtension.lowercased())
                && name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "-_.".contains($0)) }
        }
    }
}
