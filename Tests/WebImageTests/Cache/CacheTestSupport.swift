import Foundation
import Glibc
@testable import WebImage
import WebImageTestSupport

/// A fresh directory under the system temporary directory, removed after `body`.
func withTemporaryDirectory<T>(_ body: (String) async throws -> T) async rethrows -> T {
    let path = NSTemporaryDirectory() + "webimage-cache-tests-" + UUID().uuidString
    try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: path) }
    return try await body(path)
}

/// A configuration rooted in `directory`, with no timer, so that tests decide when to clean.
func testConfig(_ directory: String, namespace: String = "test") -> CacheConfig {
    var config = CacheConfig()
    config.rootDirectory = directory
    config.namespace = namespace
    config.autoCleanInterval = nil
    return config
}

/// Sets a file's access and modification times.
func setFileTimes(_ path: String, accessed: Date, modified: Date) {
    func spec(_ date: Date) -> timespec {
        let seconds = date.timeIntervalSince1970.rounded(.down)
        return timespec(tv_sec: Int(seconds), tv_nsec: Int((date.timeIntervalSince1970 - seconds) * 1e9))
    }
    var times = [spec(accessed), spec(modified)]
    _ = utimensat(AT_FDCWD, path, &times, 0)
}

/// The access and modification times of a file, seconds since 1970.
func fileTimes(_ path: String) -> (accessed: Double, modified: Double)? {
    DiskFiles.status(path: path).map { ($0.accessed, $0.modified) }
}

/// Names of the files in `directory`.
func fileNames(in directory: String) -> [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).sorted()
}

/// A small PNG made from drawn pixels.
func makePNG(width: Int = 32, height: Int = 24, seed: Int = 0) throws -> (image: Image, data: Data) {
    var pixels = [UInt8](repeating: 0, count: width * height * 3)
    for index in 0..<(width * height) {
        pixels[index * 3] = UInt8(truncatingIfNeeded: index + seed)
        pixels[index * 3 + 1] = UInt8(truncatingIfNeeded: seed * 40)
        pixels[index * 3 + 2] = 200
    }
    let image = try Image(pixels: pixels, width: width, height: height, channels: 3)
    let data = try VipsCoder.shared.encode(image, options: ImageEncodeOptions(format: .png))
    return (image, data)
}

/// Polls `condition` until it holds or `timeout` passes; returns whether it held.
func eventually(timeout: Duration = .seconds(10), _ condition: () async -> Bool) async -> Bool {
    let clock = ContinuousClock()
    let deadline = clock.now + timeout
    while clock.now < deadline {
        if await condition() { return true }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return await condition()
}
