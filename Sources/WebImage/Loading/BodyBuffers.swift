import Foundation
import WebImageLocking

/// Reusable memory for download bodies of a declared length.
///
/// Every download needs its body in one contiguous block. Allocating a fresh ~100 KB block
/// per download and freeing it once the caller is done with the bytes makes glibc's malloc
/// hand the pages back to the kernel (heap trimming) whenever several downloads overlap,
/// and fault them in again for the next download: measured at about ten page faults a
/// 100 KB download and a quarter of the downloader's CPU time. Blocks given back here are
/// kept for the next download instead (power-of-two sizes up to ``largestPooled``, at most
/// `maxRetainedBytes` kept in all), as NIO keeps its receive buffers.
final class BodyBuffers: Sendable {
    /// A block of memory owned by one download at a time: taken, filled, and handed to
    /// exactly one `Data` (whose deallocator gives it back) or given back on failure.
    struct Block: @unchecked Sendable {
        let pointer: UnsafeMutableRawPointer
        let capacity: Int
    }

    /// The pool the downloader uses: up to 16 MB of free blocks.
    static let shared = BodyBuffers(maxRetainedBytes: 16 << 20)

    /// Bodies above this size get a block of their own, freed after use.
    static let largestPooled = 4 << 20
    /// The smallest block size.
    static let smallestPooled = 16 << 10

    private struct State {
        /// Free blocks by size class: `free[i]` holds blocks of `smallestPooled << i` bytes.
        var free: [[Block]] = Array(repeating: [], count: BodyBuffers.sizeClassCount)
        var retainedBytes = 0
    }

    /// Power-of-two sizes from ``smallestPooled`` to ``largestPooled``.
    static let sizeClassCount = (largestPooled / smallestPooled).trailingZeroBitCount + 1

    /// The index in `State.free` of a pooled block size.
    private static func sizeClass(of size: Int) -> Int {
        (size / smallestPooled).trailingZeroBitCount
    }

    private let state = Locked(State())
    private let maxRetainedBytes: Int

    init(maxRetainedBytes: Int) {
        self.maxRetainedBytes = maxRetainedBytes
    }

    deinit {
        // Blocks lent out hold the pool (their `Data` deallocators capture it), so every
        // block is back here by now.
        state.withLock { state in
            for blocks in state.free {
                for block in blocks { block.pointer.deallocate() }
            }
            state.free = []
        }
    }

    /// The size of the block that holds `count` bytes.
    static func blockSize(for count: Int) -> Int {
        guard count <= largestPooled else { return count }
        var size = smallestPooled
        while size < count { size <<= 1 }
        return size
    }

    /// A block of at least `count` bytes (a kept one when there is one).
    func take(atLeast count: Int) -> Block {
        let size = Self.blockSize(for: count)
        let kept = size > Self.largestPooled ? nil : state.withLock { state -> Block? in
            guard let block = state.free[Self.sizeClass(of: size)].popLast() else { return nil }
            state.retainedBytes -= size
            return block
        }
        if let kept { return kept }
        return Block(pointer: .allocate(byteCount: size, alignment: 16), capacity: size)
    }

    /// Takes `block` back: kept for a later download while there is room, else freed.
    func give(_ block: Block) {
        let keep = block.capacity <= Self.largestPooled && state.withLock { state -> Bool in
            guard state.retainedBytes + block.capacity <= maxRetainedBytes else { return false }
            state.retainedBytes += block.capacity
            state.free[Self.sizeClass(of: block.capacity)].append(block)
            return true
        }
        if !keep { block.pointer.deallocate() }
    }

    /// The first `count` bytes of `block` as `Data`, without a copy; the block comes back
    /// here when the last copy of the `Data` goes away.
    func data(of block: Block, count: Int) -> Data {
        Data(bytesNoCopy: block.pointer, count: count, deallocator: .custom { [self] _, _ in give(block) })
    }

    /// Bytes in free blocks kept now.
    var retainedBytes: Int { state.withLock { $0.retainedBytes } }
}
