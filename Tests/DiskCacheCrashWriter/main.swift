// The child process of the crash-safety test: writes, rewrites, re-tags and
// removes a fixed set of keys in a DiskCache until it is killed.
//
// Usage: DiskCacheCrashWriter <cache root> [first generation]
//
// Every payload follows from (key, generation), so a reader can tell a complete version
// from a torn one (`VersionedPayload`, shared with the tests); the entry's ETag is always
// the generation of its bytes.
import Foundation
import VersionedPayload
import WebImage

let arguments = CommandLine.arguments
guard arguments.count >= 2 else {
    FileHandle.standardError.write(Data("usage: DiskCacheCrashWriter <cache root> [first generation]\n".utf8))
    exit(2)
}
var config = CacheConfig()
config.rootDirectory = arguments[1]
config.namespace = "crash"
config.maxDiskAge = -1
config.autoCleanInterval = nil
let cache = DiskCache(config: config)
var generation = arguments.count > 2 ? Int(arguments[2]) ?? 0 : 0

// Tell the test that writing starts now, so that its kill lands among the writes.
FileHandle.standardOutput.write(Data("writing\n".utf8))
while true {
    for key in VersionedPayload.keys {
        generation += 1
        switch generation % 11 {
        case 5:
            // Rewrites the file with new metadata; the ETag still names the bytes' generation.
            if var metadata = cache.entrySync(forKey: key)?.metadata {
                metadata.lastModified = "rewritten at generation \(generation)"
                _ = try? cache.updateMetadataSync(metadata, forKey: key)
            }
        case 7:
            cache.removeSync(forKey: key)
        default:
            try? cache.storeSync(VersionedPayload.data(key: key, generation: generation), forKey: key, metadata: CacheMetadata(etag: String(generation)))
        }
    }
}
