import Foundation

/// Versioned payloads whose every byte follows from (key, generation), so a reader can tell
/// a complete version from a torn one. Shared by the cache tests and the crash-safety child
/// process (DiskCacheCrashWriter).
public enum VersionedPayload {
    /// The keys the writer cycles through.
    public static let keys = (0..<6).map { "https://crash.example/images/\($0).png" }

    /// The payload of `generation` for `key`.
    public static func data(key: String, generation: Int) -> Data {
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
    public static func verifiedGeneration(of data: Data, key: String) -> Int? {
        guard let newline = data.firstIndex(of: 0x0A) else { return nil }
        let fields = String(decoding: data[data.startIndex..<newline], as: UTF8.self).split(separator: " ")
        guard fields.count == 3, fields[0] == "WICTEST", fields[2] == key, let generation = Int(fields[1]) else { return nil }
        return self.data(key: key, generation: generation) == data ? generation : nil
    }
}
