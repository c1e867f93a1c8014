#if canImport(Glibc)
import Glibc
#endif

/// The exact peak resident memory of one piece of work, from Linux's own high-water
/// mark (`VmHWM`), which `/proc/self/clear_refs` resets to the current resident size.
///
/// package-benchmark's `peakMemoryResident` samples the resident size every ~5 ms and
/// can miss a short spike; this reading cannot.
public enum PeakResident {
    /// Resets the high-water mark and returns the resident size now, in bytes; `nil`
    /// where the kernel does not allow it (not Linux, or before Linux 4.0).
    public static func reset() -> Int? {
        #if os(Linux)
        let fd = open("/proc/self/clear_refs", O_WRONLY)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        let written = "5".withCString { write(fd, $0, 1) }
        guard written == 1 else { return nil }
        return statusField("VmRSS:")
        #else
        return nil
        #endif
    }

    /// The high-water mark since the last ``reset()``, in bytes.
    public static func highWaterMark() -> Int? {
        statusField("VmHWM:")
    }

    /// A `kB` field of `/proc/self/status`, in bytes.
    private static func statusField(_ name: String) -> Int? {
        #if os(Linux)
        let fd = open("/proc/self/status", O_RDONLY)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: 8192)
        let count = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard count > 0 else { return nil }
        let text = String(decoding: bytes[0..<count], as: UTF8.self)
        for line in text.split(separator: "\n") where line.hasPrefix(name) {
            let digits = line.dropFirst(name.count).filter(\.isNumber)
            return Int(digits).map { $0 * 1024 }
        }
        return nil
        #else
        return nil
        #endif
    }
}
