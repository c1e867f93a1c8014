import CVips

/// The memory libvips counts as its own (its pixel buffers and caches, not the decoders'
/// libraries): what a server's metrics report as `vips_memory_bytes`,
/// `vips_max_memory_bytes` and `vips_allocs`.
public struct VipsMemoryStatistics: Sendable, Equatable {
    /// The bytes libvips holds now.
    public var bytes: Int
    /// The most bytes libvips has held at once since the process started.
    public var highWaterBytes: Int
    /// The allocations libvips holds now.
    public var allocations: Int

    /// Creates statistics.
    public init(bytes: Int, highWaterBytes: Int, allocations: Int) {
        self.bytes = bytes
        self.highWaterBytes = highWaterBytes
        self.allocations = allocations
    }

    /// libvips' counts as they stand (all 0 before the first image is coded).
    public static var current: VipsMemoryStatistics {
        VipsMemoryStatistics(
            bytes: Int(vips_tracked_get_mem()), highWaterBytes: Int(vips_tracked_get_mem_highwater()),
            allocations: Int(vips_tracked_get_allocs())
        )
    }
}
