import CChildProcess
import Foundation
import Glibc
import Synchronization

/// A child process of a test, with the part of Foundation's `Process` the tests use:
/// started with `posix_spawn` through `CChildProcess`, which closes every other
/// descriptor in the child without reading `/proc/self/fd` as Foundation's `Process.run()`
/// does on Linux, a read that now and then crashes a process with many descriptors open.
package final class ChildProcess: @unchecked Sendable {
    /// How the process ended.
    package enum TerminationReason: Sendable {
        /// It exited; ``terminationStatus`` is its exit status.
        case exit
        /// A signal ended it; ``terminationStatus`` is the signal.
        case uncaughtSignal
    }

    /// The program; set before ``run()``.
    package var executableURL: URL?
    /// Its arguments, without the program's name.
    package var arguments: [String] = []
    /// Its environment; `nil`: this process's.
    package var environment: [String: String]?
    /// Its working directory; `nil`: this process's.
    package var currentDirectoryURL: URL?
    /// Its standard input: a `Pipe`, a `FileHandle`, or `nil` for this process's.
    package var standardInput: Any?
    /// Its standard output: a `Pipe`, a `FileHandle`, or `nil` for this process's.
    package var standardOutput: Any?
    /// Its standard error: a `Pipe`, a `FileHandle`, or `nil` for this process's.
    package var standardError: Any?
    /// Called once the process has ended, on a thread of its own.
    package var terminationHandler: (@Sendable (ChildProcess) -> Void)?

    private struct State {
        var pid: pid_t = 0
        var ended: (reason: TerminationReason, status: Int32)?
    }

    private let state = Mutex(State())
    private let ended = NSCondition()

    /// A process to start with ``run()``.
    package init() {}

    /// The process's ID; 0 before ``run()``.
    package var processIdentifier: Int32 { state.withLock { $0.pid } }

    /// Whether it has started and not ended.
    package var isRunning: Bool { state.withLock { $0.pid != 0 && $0.ended == nil } }

    /// Its exit status or the signal that ended it; 0 while it runs.
    package var terminationStatus: Int32 { state.withLock { $0.ended?.status ?? 0 } }

    /// How it ended; ``TerminationReason/exit`` while it runs.
    package var terminationReason: TerminationReason { state.withLock { $0.ended?.reason ?? .exit } }

    /// Starts the process. The parent's copies of the pipe ends the child uses are closed,
    /// so that reading its output ends when it exits.
    /// - Throws: `POSIXError` when it cannot be started.
    package func run() throws {
        guard let executableURL else { throw POSIXError(.ENOENT) }
        let argv = ([executableURL.path] + arguments).map { strdup($0) }
        let envp = environment.map { $0.map { strdup("\($0.key)=\($0.value)") } }
        defer {
            argv.forEach { free($0) }
            envp?.forEach { free($0) }
        }
        // Foundation's null device handle has no descriptor of its own: the child gets one.
        let nullDevice = open("/dev/null", O_RDWR | O_CLOEXEC)
        defer { if nullDevice >= 0 { close(nullDevice) } }
        func descriptor(_ stream: Any?, reading: Bool) -> Int32 {
            switch stream {
            case let pipe as Pipe: reading ? pipe.fileHandleForReading.fileDescriptor : pipe.fileHandleForWriting.fileDescriptor
            case let handle as FileHandle: handle === FileHandle.nullDevice ? nullDevice : handle.fileDescriptor
            default: -1
            }
        }
        let (input, output, error) = (
            descriptor(standardInput, reading: true), descriptor(standardOutput, reading: false), descriptor(standardError, reading: false)
        )
        var pid: pid_t = 0
        let result = (argv + [nil]).withUnsafeBufferPointer { argvPointer in
            withOptionalArray(envp.map { $0 + [nil] }) { envpPointer in
                withOptionalCString(currentDirectoryURL?.path) { directory in
                    webimage_spawn(&pid, argvPointer[0], argvPointer.baseAddress, envpPointer, directory, input, output, error)
                }
            }
        }
        guard result == 0 else { throw POSIXError(POSIXErrorCode(rawValue: result) ?? .EIO) }
        state.withLock { $0.pid = pid }
        closeChildEnds()
        let child = pid
        let thread = Thread { [self] in waitForExit(child) }
        thread.start()
    }

    /// Blocks until the process has ended.
    package func waitUntilExit() {
        ended.lock()
        while state.withLock({ $0.ended == nil }) { ended.wait() }
        ended.unlock()
    }

    /// Sends it SIGTERM.
    package func terminate() {
        let pid = processIdentifier
        if pid != 0, isRunning { kill(pid, SIGTERM) }
    }

    private func waitForExit(_ pid: pid_t) {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1, errno == EINTR {}
        // The status word as <sys/wait.h> reads it: the low 7 bits are the signal, if any.
        let signal = status & 0x7f
        let outcome: (TerminationReason, Int32) = signal == 0 ? (.exit, (status >> 8) & 0xff) : (.uncaughtSignal, signal)
        ended.lock()
        state.withLock { $0.ended = outcome }
        ended.broadcast()
        ended.unlock()
        terminationHandler?(self)
    }

    /// Closes the parent's copies of the pipe ends the child reads and writes.
    private func closeChildEnds() {
        var closed = Set<ObjectIdentifier>()
        func close(_ handle: FileHandle) {
            if closed.insert(ObjectIdentifier(handle)).inserted { try? handle.close() }
        }
        if let pipe = standardInput as? Pipe { close(pipe.fileHandleForReading) }
        if let pipe = standardOutput as? Pipe { close(pipe.fileHandleForWriting) }
        if let pipe = standardError as? Pipe { close(pipe.fileHandleForWriting) }
    }
}

private func withOptionalArray<R>(_ array: [UnsafeMutablePointer<CChar>?]?, _ body: (UnsafePointer<UnsafeMutablePointer<CChar>?>?) -> R) -> R {
    guard let array else { return body(nil) }
    return array.withUnsafeBufferPointer { body($0.baseAddress) }
}

private func withOptionalCString<R>(_ string: String?, _ body: (UnsafePointer<CChar>?) -> R) -> R {
    guard let string else { return body(nil) }
    return string.withCString { body($0) }
}
