import ArgumentParser
import Foundation
import WebImage
import WebImageLocking

/// Writes fetched images into a directory, one file an image, named after the URL's last
/// path component with the extension of the format written (`a.png`, `photo.webp`); a
/// name already used in this run gets `-2`, `-3`… before the extension.
final class ImageWriter: Sendable {
    let directory: String
    private let usedNames = InlineLocked<Set<String>>([])

    /// A writer into `directory`, created when missing.
    init(directory: String) throws {
        self.directory = directory
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else {
                throw ValidationError("-o \(directory): the path is a file; pass a directory (created when missing) or '-' for standard output")
            }
        } else {
            do {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            } catch {
                throw ValidationError("-o \(directory): cannot create the directory (\(error.localizedDescription)); pass a writable directory")
            }
        }
    }

    /// Writes `data` for `url` and returns the file's path.
    func write(_ data: Data, for url: URL, format: ImageFormat) throws(ImageError) -> String {
        let name = reserveName(for: url, format: format)
        let path = (directory == "." ? "" : directory.hasSuffix("/") ? directory : directory + "/") + name
        do {
            try data.write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            throw .cacheFailure("cannot write \(path): \(error.localizedDescription)")
        }
        return path
    }

    private func reserveName(for url: URL, format: ImageFormat) -> String {
        var stem = url.scheme == "data" ? "" : url.deletingPathExtension().lastPathComponent
        // Only characters that are safe in a file name on every system.
        stem = String(stem.map { $0.isLetter || $0.isNumber || "-_.".contains($0) ? $0 : "_" })
        if stem.isEmpty || stem == "/" || stem.allSatisfy({ $0 == "." || $0 == "_" }) { stem = "image" }
        let ext = format.fileExtension.isEmpty ? "" : "." + format.fileExtension
        return usedNames.withLock { used in
            var name = stem + ext
            var number = 2
            while used.contains(name) {
                name = "\(stem)-\(number)\(ext)"
                number += 1
            }
            used.insert(name)
            return name
        }
    }
}
