import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A tmpfs of a few kilobytes mounted on a fresh temporary directory: a real disk that
/// fills up (writes fail with ENOSPC) and can be made read-only (EROFS) while in use.
/// Mounting needs root (CAP_SYS_ADMIN), as the test machines and CI run; ``mount(bytes:)``
/// returns `nil` elsewhere so that a test can say why it did not run.
package final class SmallFilesystem: Sendable {
    /// The mount point.
    package let path: String

    private init(path: String) {
        self.path = path
    }

    /// Mounts a tmpfs of `bytes` (rounded up to pages by the kernel); `nil` without the
    /// privilege to mount.
    package static func mount(bytes: Int) throws -> SmallFilesystem? {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-small-fs-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        guard run("/bin/mount", ["-t", "tmpfs", "-o", "size=\(bytes)", "tmpfs", path]) == 0 else {
            try? FileManager.default.removeItem(atPath: path)
            return nil
        }
        return SmallFilesystem(path: path)
    }

    /// Remounts read-only (`true`) or read-write (`false`).
    package func setReadOnly(_ readOnly: Bool) throws {
        guard Self.run("/bin/mount", ["-o", readOnly ? "remount,ro" : "remount,rw", path]) == 0 else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path])
        }
    }

    /// Unmounts and removes the mount point.
    package func unmount() {
        _ = Self.run("/bin/umount", ["-l", path])
        try? FileManager.default.removeItem(atPath: path)
    }

    /// Regular files under `directory` (relative to the mount), hidden ones included.
    package func files(in directory: String) -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: path + "/" + directory)) ?? []
    }

    private static func run(_ executable: String, _ arguments: [String]) -> Int32 {
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            return -1
        }
        process.waitUntilExit()
        return process.terminationStatus
    }
}
