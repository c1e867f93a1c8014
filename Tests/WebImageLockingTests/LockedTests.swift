import CThreadSanitizer
import Testing
import WebImageLocking

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

@Suite("Locks")
struct LockedTests {
    /// Increments from many tasks at once; any lost update shows in the total.
    private static func hammer(tasks: Int, each: Int, _ increment: @escaping @Sendable () -> Void) async {
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<tasks {
                group.addTask {
                    for _ in 0..<each { increment() }
                }
            }
        }
    }

    @Test("Locked: concurrent read-modify-writes lose nothing; withLock returns the body's result")
    func lockedSerializes() async {
        let counter = Locked(0)
        await Self.hammer(tasks: 8, each: 20_000) { counter.withLock { $0 += 1 } }
        #expect(counter.withLock { $0 } == 160_000)
        let previous = counter.withLock { value -> Int in
            defer { value = -1 }
            return value
        }
        #expect(previous == 160_000)
        #expect(counter.withLock { $0 } == -1)
    }

    @Test("InlineLocked inside its owner: concurrent read-modify-writes lose nothing")
    func inlineLockedSerializes() async {
        final class Owner: Sendable {
            let values = InlineLocked<[Int]>([])
        }
        let owner = Owner()
        await Self.hammer(tasks: 8, each: 5_000) {
            owner.values.withLock { $0.append($0.count) }
        }
        let values = owner.values.withLock { $0 }
        #expect(values.count == 40_000)
        #expect(values == Array(0..<40_000), "each append saw every earlier one")
    }

    @Test("the locks' annotations reach the thread sanitizer exactly when the process runs under it")
    func annotationsFollowTheSanitizer() {
        // The runtime's own entry point, looked up by name (a null handle searches the
        // whole process): present only in a sanitized build.
        let underSanitizer = dlsym(nil, "__tsan_init") != nil
        #expect((webimage_tsan_is_active() != 0) == underSanitizer)
    }
}
