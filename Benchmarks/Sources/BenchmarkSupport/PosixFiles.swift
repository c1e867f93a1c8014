import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The plain POSIX baseline for the disk cache: write to a temporary file and rename it
/// into place; open, fstat, read, close. No checksum, no metadata, no fsync (the disk
/// cache does not fsync either).
public enum PosixFiles {
    /// Writes `data` to `directory/.name.tmp`, then renames it to `directory/name`.
    public static func writeAtomically(_ data: Data, directory: String, name: String) {
        let temporary = directory + "/." + name + ".tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        precondition(fd >= 0, "open \(temporary): \(errno)")
        data.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let n = write(fd, bytes.baseAddress! + offset, bytes.count - offset)
                if n < 0 {
                    if errno == EINTR { continue }
                    preconditionFailure("write: \(errno)")
                }
                offset += n
            }
        }
        close(fd)
        precondition(rename(temporary, directory + "/" + name) == 0, "rename: \(errno)")
    }

    /// The whole file at `path` (malloc'd buffer handed to `Data` without a copy), or nil.
    public static func read(path: String) -> Data? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { return nil }
        let size = Int(st.st_size)
        guard let buffer = malloc(max(size, 1)) else { return nil }
        var offset = 0
        while offset < size {
            let n = Glibc.read(fd, buffer + offset, size - offset)
            if n < 0, errno == EINTR { continue }
            if n <= 0 { free(buffer); return nil }
            offset += n
        }
        return Data(bytesNoCopy: buffer, count: size, deallocator: .free)
    }

    /// A fresh empty directory under the system's temporary directory.
    public static func temporaryDirectory(_ prefix: String) -> String {
        var template = Array((NSTemporaryDirectory() + "/\(prefix)-XXXXXX").utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        precondition(made != nil, "mkdtemp: \(errno)")
        return String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// `count` pseudo-random bytes (incompressible, reproducible).
    public static func randomBytes(_ count: Int, seed: UInt64 = 0x5EED_100C) -> Data {
        var state = seed
        var bytes = [UInt8](repeating: 0, count: count)
        for i in 0..<count {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            bytes[i] = UInt8(truncatingIfNeeded: state >> 33)
        }
        return Data(bytes)
    }
}
