#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Tells the thread sanitizer about the ordering a `Mutex` already provides.
///
/// On Linux a contended `Mutex` hands the lock over inside the kernel (a priority-inheritance
/// futex) from code in the standard library, which is not instrumented; the sanitizer then
/// sees two critical sections with no order between them and reports a race that cannot
/// happen. Marking the start of each critical section as an acquire and its end as a
/// release on one address per lock restores the order it cannot see. The hooks are looked
/// up at run time and are `nil` unless the process runs under the sanitizer, so a normal
/// build pays one predictable branch.
@usableFromInline
enum ThreadSanitizerHooks {
    @usableFromInline
    typealias Hook = @convention(c) (UnsafeRawPointer?) -> Void

    @usableFromInline
    static let acquire: Hook? = lookup("__tsan_acquire")

    @usableFromInline
    static let release: Hook? = lookup("__tsan_release")

    private static func lookup(_ name: String) -> Hook? {
        // A null handle is RTLD_DEFAULT: search the whole process.
        guard let symbol = dlsym(nil, name) else { return nil }
        return unsafeBitCast(symbol, to: Hook.self)
    }
}
