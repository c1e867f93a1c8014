#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import Synchronization

/// The POSIX file operations under ``DiskCache``. Foundation's file APIs allocate and
/// stat more than needed on Linux; these do one `open`, `fstat`, `read`, `close` per read
/// and one `open`, `writev`, `close`, `rename` per write.
enum DiskFiles {
    /// What `stat` says about a file.
    struct Status {
        var size: Int
        /// Last modification, seconds since 1970.
        var modified: Double
        /// Last access, seconds since 1970.
        var accessed: Double
        /// Last status change (any write, rename or time change), which no call can set
        /// back: seconds and nanoseconds.
        var changedSeconds: Int
        var changedNanoseconds: Int
        var device: UInt64
        var inode: UInt64
        var isRegularFile: Bool

        init(_ info: stat) {
            size = Int(info.st_size)
            #if canImport(Darwin)
            modified = Double(info.st_mtimespec.tv_sec) + Double(info.st_mtimespec.tv_nsec) / 1e9
            accessed = Double(info.st_atimespec.tv_sec) + Double(info.st_atimespec.tv_nsec) / 1e9
            changedSeconds = Int(info.st_ctimespec.tv_sec)
            changedNanoseconds = Int(info.st_ctimespec.tv_nsec)
            #else
            modified = Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9
            accessed = Double(info.st_atim.tv_sec) + Double(info.st_atim.tv_nsec) / 1e9
            changedSeconds = Int(info.st_ctim.tv_sec)
            changedNanoseconds = Int(info.st_ctim.tv_nsec)
            #endif
            device = UInt64(info.st_dev)
            inode = UInt64(info.st_ino)
            isRegularFile = (info.st_mode & S_IFMT) == S_IFREG
        }
    }

    /// A whole file in a `malloc`ed buffer. The receiver owns `buffer`: it either hands it to
    /// a `Data` with ``takeData(count:)`` or calls ``release()``.
    struct Contents {
        let buffer: UnsafeMutableRawPointer
        let count: Int
        let status: Status

        var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: buffer, count: count) }

        /// The first `count` bytes as a `Data` that frees the buffer, without copying.
        func takeData(count: Int) -> Data {
            Data(bytesNoCopy: buffer, count: count, deallocator: .free)
        }

        func release() {
            free(buffer)
        }
    }

    /// `UTIME_OMIT` from `<sys/stat.h>`: leave that timestamp as it is. (The C macro is an
    /// expression Swift does not import.)
    private static let timeOmit = (1 << 30) - 2

    /// Reads the whole regular file at `path`; `nil` when it does not exist or cannot be
    /// read. When `touchAccessBefore` is given and the file's access time is older, the
    /// access time is set to now (the modification time is left alone), through the open
    /// descriptor so that it is the file just read that is touched.
    static func readFile(path: String, touchAccessBefore: Double? = nil) -> Contents? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return nil }
        let status = Status(info)
        guard status.isRegularFile, let buffer = malloc(max(status.size, 1)) else { return nil }
        var done = 0
        while done < status.size {
            let result = read(descriptor, buffer + done, status.size - done)
            if result > 0 {
                done += result
            } else if result < 0 && errno == EINTR {
                continue
            } else {
                break
            }
        }
        guard done == status.size else {
            free(buffer)
            return nil
        }
        if let limit = touchAccessBefore, status.accessed < limit {
            var times = (timespec(tv_sec: time(nil), tv_nsec: 0), timespec(tv_sec: 0, tv_nsec: timeOmit))
            _ = withUnsafePointer(to: &times) {
                $0.withMemoryRebound(to: timespec.self, capacity: 2) { futimens(descriptor, $0) }
            }
        }
        return Contents(buffer: buffer, count: done, status: status)
    }

    /// `stat` of `path` (not following a final symbolic link), or `nil`.
    static func status(path: String) -> Status? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        return Status(info)
    }

    private static let temporaryCounter = Atomic<UInt64>(0)

    /// Whether `name` is a temporary file of ``writeAtomically(_:trailer:directory:fileName:)``.
    static func isTemporary(_ name: String) -> Bool {
        name.hasPrefix(".") && name.hasSuffix(".tmp")
    }

    /// Writes `data` then `trailer` to `directory/fileName` atomically: into a temporary file
    /// in the same directory (`.<fileName>.<pid>-<n>.tmp`), then renamed over the target, so
    /// a reader or a crash sees the old file, the new one or none, never a mix. The directory
    /// is created when missing. There is no `fsync`: a crash of the process cannot lose
    /// written bytes, and the bytes a power loss can lose are caught by the entry's checksum.
    /// Returns the bytes written.
    static func writeAtomically(_ data: Data, trailer: [UInt8], directory: String, fileName: String) throws(ImageError) -> Int {
        var descriptor: Int32 = -1
        var temporary = ""
        var createdDirectory = false
        while descriptor < 0 {
            let number = temporaryCounter.wrappingAdd(1, ordering: .relaxed).newValue
            temporary = directory + "/." + fileName + "." + String(getpid()) + "-" + String(number) + ".tmp"
            descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
            if descriptor < 0 {
                let code = errno
                if code == EEXIST || code == EINTR { continue }
                if code == ENOENT && !createdDirectory {
                    createdDirectory = true
                    do {
                        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
                    } catch {
                        throw .cacheFailure("cannot create the cache directory \(directory): \(error)")
                    }
                    continue
                }
                throw .cacheFailure("cannot create \(temporary): \(describe(code))")
            }
        }
        let total = data.count + trailer.count
        let written = data.withUnsafeBytes { dataBytes in
            trailer.withUnsafeBytes { trailerBytes in
                writeAll(descriptor, dataBytes, trailerBytes)
            }
        }
        let code = errno
        close(descriptor)
        guard written == total else {
            unlink(temporary)
            throw .cacheFailure("cannot write \(temporary): \(describe(code))")
        }
        guard rename(temporary, directory + "/" + fileName) == 0 else {
            let code = errno
            unlink(temporary)
            throw .cacheFailure("cannot rename \(temporary) into place: \(describe(code))")
        }
        return total
    }

    /// Writes both buffers with `writev`, finishing with `write` after a short write.
    /// Returns the bytes written, or -1 on an error (with `errno` set).
    private static func writeAll(_ descriptor: Int32, _ first: UnsafeRawBufferPointer, _ second: UnsafeRawBufferPointer) -> Int {
        var vectors = [
            iovec(iov_base: UnsafeMutableRawPointer(mutating: first.baseAddress), iov_len: first.count),
            iovec(iov_base: UnsafeMutableRawPointer(mutating: second.baseAddress), iov_len: second.count),
        ]
        var result = 0
        repeat {
            result = writev(descriptor, &vectors, 2)
        } while result < 0 && errno == EINTR
        let total = first.count + second.count
        guard result >= 0 else { return -1 }
        guard result < total else { return result }
        // A short write (a signal, a nearly full disk): go on from where it stopped.
        if result < first.count {
            guard writeFully(descriptor, first, from: result) else { return -1 }
            result = first.count
        }
        guard writeFully(descriptor, second, from: result - first.count) else { return -1 }
        return total
    }

    private static func writeFully(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer, from start: Int) -> Bool {
        var offset = start
        while offset < bytes.count {
            let result = write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
            if result > 0 {
                offset += result
            } else if result < 0 && errno == EINTR {
                continue
            } else {
                return false
            }
        }
        return true
    }

    /// Calls `body` with the name and status of each directory entry of `directory`
    /// (not `.` and `..`). Does nothing when the directory cannot be opened.
    static func forEachEntry(in directory: String, _ body: (String, Status) -> Void) {
        guard let stream = opendir(directory) else { return }
        defer { closedir(stream) }
        let descriptor = dirfd(stream)
        while let entry = readdir(stream) {
            let name = withUnsafePointer(to: &entry.pointee.d_name) {
                $0.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
            }
            if name == "." || name == ".." { continue }
            var info = stat()
            guard fstatat(descriptor, name, &info, AT_SYMLINK_NOFOLLOW) == 0 else { continue }
            body(name, Status(info))
        }
    }

    /// Removes `path` only if it is still the file `status` describes, so that a damaged
    /// file is not confused with a good one renamed over it meanwhile.
    static func removeIfUnchanged(path: String, status: Status) {
        guard isSameFile(path: path, status: status) else { return }
        unlink(path)
    }

    /// Whether `path` is still the file `status` describes (the same inode on the same
    /// device), not another one renamed over it since.
    static func isSameFile(path: String, status: Status) -> Bool {
        guard let current = self.status(path: path) else { return false }
        return current.device == status.device && current.inode == status.inode
    }

    /// `strerror` for `code`.
    static func describe(_ code: Int32) -> String {
        String(cString: strerror(code))
    }
}
