import Foundation
import Testing
@testable import WebImage

@Suite("BodyBuffers")
struct BodyBuffersTests {
    @Test("body blocks are reused by size, handed over as Data without a copy, and the pool stays bounded")
    func reuseAndBounds() {
        let buffers = BodyBuffers(maxRetainedBytes: 256 << 10)
        #expect(BodyBuffers.blockSize(for: 1) == 16 << 10)
        #expect(BodyBuffers.blockSize(for: 100 * 1024) == 128 << 10)
        #expect(BodyBuffers.blockSize(for: (4 << 20) + 1) == (4 << 20) + 1, "large bodies get an exact block")

        let first = buffers.take(atLeast: 100 * 1024)
        #expect(first.capacity == 128 << 10)
        (first.pointer).initializeMemory(as: UInt8.self, repeating: 7, count: 100 * 1024)
        var data: Data? = buffers.data(of: first, count: 100 * 1024)
        #expect(data?.count == 100 * 1024)
        #expect(data?.allSatisfy { $0 == 7 } == true)
        #expect(data?.withUnsafeBytes { $0.baseAddress } == UnsafeRawPointer(first.pointer), "no copy")
        #expect(buffers.retainedBytes == 0)
        data = nil
        #expect(buffers.retainedBytes == 128 << 10, "the block came back when the Data went away")
        let second = buffers.take(atLeast: 70 * 1024)
        #expect(second.pointer == first.pointer, "a kept block of the same size is reused")
        #expect(buffers.retainedBytes == 0)

        // At most 256 KB are kept: the third 128 KB block is freed.
        let blocks = (0..<3).map { _ in buffers.take(atLeast: 100 * 1024) }
        buffers.give(second)
        for block in blocks { buffers.give(block) }
        #expect(buffers.retainedBytes == 256 << 10)
        let large = buffers.take(atLeast: 5 << 20)
        buffers.give(large)
        #expect(buffers.retainedBytes == 256 << 10, "blocks above the largest size are never kept")
    }

    @Test("each power-of-two size from 16 KB to 4 MB is pooled apart")
    func sizeClasses() {
        let buffers = BodyBuffers(maxRetainedBytes: 16 << 20)
        let sizes = (0..<BodyBuffers.sizeClassCount).map { BodyBuffers.smallestPooled << $0 }
        #expect(sizes.first == 16 << 10 && sizes.last == BodyBuffers.largestPooled)
        let blocks = sizes.map { buffers.take(atLeast: $0) }
        #expect(blocks.map(\.capacity) == sizes)
        for block in blocks { buffers.give(block) }
        #expect(buffers.retainedBytes == sizes.reduce(0, +))
        // Each size gets its own block back, and only its own.
        for (size, block) in zip(sizes, blocks).reversed() {
            #expect(buffers.take(atLeast: size).pointer == block.pointer)
        }
        #expect(buffers.retainedBytes == 0)
    }
}
