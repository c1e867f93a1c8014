import Foundation

/// A fresh temporary directory standing for a home directory, with the files a test writes
/// in it (`.aws/credentials`, token files, …); removed by ``remove()``.
struct AWSTestDirectory {
    let path: String

    init() throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-aws-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    /// Writes `text` to `relative` under the directory; its full path.
    @discardableResult
    func write(_ relative: String, _ text: String) throws -> String {
        let file = (path as NSString).appendingPathComponent(relative)
        try FileManager.default.createDirectory(atPath: (file as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(text.utf8).write(to: URL(fileURLWithPath: file))
        return file
    }

    func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }
}
