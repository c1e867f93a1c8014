#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// Standard output and standard error, written unbuffered so that result lines, error
/// lines and the progress bar interleave in the order they happen.
enum Console {
    /// Writes `line` and a newline to standard output.
    static func out(_ line: String) {
        write(line + "\n", to: STDOUT_FILENO)
    }

    /// Writes `line` and a newline to standard error.
    static func err(_ line: String) {
        write(line + "\n", to: STDERR_FILENO)
    }

    /// Writes raw bytes to standard output (`fetch -o -`).
    static func outData(_ data: Data) {
        data.withUnsafeBytes { write($0, to: STDOUT_FILENO) }
    }

    /// Writes `text` to `descriptor` as is.
    static func write(_ text: String, to descriptor: Int32) {
        var text = text
        text.withUTF8 { write(UnsafeRawBufferPointer($0), to: descriptor) }
    }

    private static func write(_ bytes: UnsafeRawBufferPointer, to descriptor: Int32) {
        var offset = 0
        while offset < bytes.count {
            let written = posixWrite(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
            if written > 0 {
                offset += written
            } else if written < 0 && errno == EINTR {
                continue
            } else {
                return
            }
        }
    }

    /// Whether both standard output and standard error are terminals: only then is a
    /// progress bar drawn (on standard error), so a pipe or a file never receives one.
    static var isInteractive: Bool {
        isatty(STDOUT_FILENO) == 1 && isatty(STDERR_FILENO) == 1
    }

    /// The terminal's width in columns, or 80.
    static var terminalWidth: Int {
        var size = winsize()
        guard ioctl(STDERR_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return 80 }
        return Int(size.ws_col)
    }
}

/// `write(2)`, named apart from `Console.write`.
private func posixWrite(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
    write(descriptor, bytes, count)
}
