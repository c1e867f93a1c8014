import Foundation
import Glibc
@testable import WebImage

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

/// Versioned payloads whose every byte follows from (key, generation), so a reader can tell
/// a complete version from a torn one. The same definition is in
/// Tests/DiskCacheCrashWriter/main.swift (the child process of SPEC C8): keep them equal.
enum VersionedPayload {
    static let keys = (0..<6).map { "https://crash.example/images/\($0).png" }

    static func data(key: String, generation: Int) -> Data {
        let header = Array("WICTEST \(generation) \(key)\n".utf8)
        let length = header.count + 512 + (generation &* 7919) % 60_000
        let seed = key.utf8.reduce(0) { $0 &* 31 &+ Int($1) }
        // A 251-byte block (prime, so it never lines up with pages) repeated to the length.
        let block = (0..<251).map { UInt8(truncatingIfNeeded: ($0 &* 131) ^ (generation &* 17) ^ seed) }
        var bytes = header
        bytes.reserveCapacity(length)
        while bytes.count < length {
            bytes += block.prefix(length - bytes.count)
        }
        return Data(bytes)
    }

    /// The generation `data` claims, when it is exactly that generation's payload for `key`.
    static func verifiedGeneration(of data: Data, key: String) -> Int? {
        guard let newline = data.firstIndex(of: 0x0A) else { return nil }
        let fields = String(decoding: data[data.startIndex..<newline], as: UTF8.self).split(separator: " ")
        guard fields.count == 3, fields[0] == "WICTEST", fields[2] == key, let generation = Int(fields[1]) else { return nil }
        return self.data(key: key, generation: generation) == data ? generation : nil
    }
}
