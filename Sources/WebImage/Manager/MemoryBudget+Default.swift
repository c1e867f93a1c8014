import Foundation

extension MemoryBudget {
    /// The memory this process may use: the machine's physical memory, or its control
    /// group's limit when that is lower (cgroup v2 `memory.max`, v1
    /// `memory.limit_in_bytes`), as in a container with a memory limit.
    public static var availableMemory: Int {
        let physical = Int(ProcessInfo.processInfo.physicalMemory)
        let limits = [
            "/sys/fs/cgroup/memory.max",
            "/sys/fs/cgroup/memory/memory.limit_in_bytes",
        ].compactMap { path -> Int? in
            guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
            // "max" (v2) or a huge number (v1) when there is no limit.
            return Int(text.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        return ([physical] + limits.filter { $0 > 0 }).min() ?? physical
    }

    /// The default budget: a quarter of ``availableMemory``.
    public static var defaultBytes: Int { max(64 << 20, availableMemory / 4) }
}
