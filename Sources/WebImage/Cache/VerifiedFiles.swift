/// The files whose checksum a ``DiskCache`` has verified and that have not changed since,
/// so that reading a hot entry again does not checksum it again.
///
/// A file is known by its device and inode, and "unchanged" means the same size and the
/// same status-change time. The change time is set by the kernel on every write, truncation
/// or rename and cannot be set back by any call, so damage done from outside after the
/// check — an in-place write, a truncation — always forces a new check. (Kernels before
/// 6.13 keep change times at clock-tick resolution, so there a write within the same few
/// milliseconds as the check could go unseen; 6.13 and later give a changed file a distinct
/// time.) What no stamp can show is the disk itself rotting under a file while the process
/// runs; the next process checks everything afresh. The cache's own writes make new inodes
/// (temporary file + rename), so they never match an old stamp by accident of content.
///
/// Checksumming is the largest cost of a read after the copy itself (CRC-32C of 100 KB is
/// about a fifth of reading it from the page cache), which is what this saves.
struct VerifiedFiles: Sendable {
    struct Identity: Hashable, Sendable {
        var device: UInt64
        var inode: UInt64
    }

    struct Stamp: Hashable, Sendable {
        var size: Int
        var changedSeconds: Int
        var changedNanoseconds: Int
    }

    /// Bounded so that a huge cache cannot grow it without limit: about 3 MB at most.
    private let stamps = MemoryCache<Identity, Stamp>(countLimit: 65_536)

    /// Whether the file `status` describes was verified as it is now.
    func contains(_ status: DiskFiles.Status) -> Bool {
        stamps.value(forKey: Self.identity(status)) == Self.stamp(status)
    }

    /// Records that the file `status` describes has a valid checksum.
    func insert(_ status: DiskFiles.Status) {
        stamps.setValue(Self.stamp(status), forKey: Self.identity(status))
    }

    /// Forgets the file `status` describes (it was found damaged or removed).
    func remove(_ status: DiskFiles.Status) {
        stamps.removeValue(forKey: Self.identity(status))
    }

    private static func identity(_ status: DiskFiles.Status) -> Identity {
        Identity(device: status.device, inode: status.inode)
    }

    private static func stamp(_ status: DiskFiles.Status) -> Stamp {
        Stamp(size: status.size, changedSeconds: status.changedSeconds, changedNanoseconds: status.changedNanoseconds)
    }
}
