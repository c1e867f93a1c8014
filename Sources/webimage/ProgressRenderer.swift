import Foundation
import WebImageLocking

/// The progress bar of `fetch` and `prefetch`: one line on standard error, redrawn in
/// place (`\r` and erase-line), e.g.
///
///     [##########----------]  5/10  1 failed  1.2 MB
///
/// Drawn only when ``isEnabled`` (``Console/isInteractive`` in the tool), so pipes and
/// files never receive one. Tests drive it directly with their own `write`.
final class ProgressRenderer: Sendable {
    /// What the bar shows.
    struct Snapshot: Sendable, Equatable {
        /// Items done, failed ones included.
        var finished = 0
        /// Items that failed.
        var failed = 0
        /// Items in all.
        var total = 0
        /// Bytes received so far, when known.
        var bytes: Int?
    }

    /// Whether anything is drawn.
    let isEnabled: Bool
    private let barWidth: Int
    private let minimumInterval: Duration
    private let write: @Sendable (String) -> Void

    private struct State {
        var snapshot = Snapshot()
        var visible = false
        var lastDraw: ContinuousClock.Instant?
    }

    private let state = InlineLocked(State())

    /// A renderer writing through `write`; redraws at most once per `minimumInterval`
    /// except when the count of finished items changes.
    init(isEnabled: Bool, barWidth: Int = 24, minimumInterval: Duration = .milliseconds(100), write: @escaping @Sendable (String) -> Void) {
        self.isEnabled = isEnabled
        self.barWidth = max(4, barWidth)
        self.minimumInterval = minimumInterval
        self.write = write
    }

    /// The tool's renderer: on standard error, enabled when both output streams are terminals.
    static func standardError() -> ProgressRenderer {
        let enabled = Console.isInteractive
        return ProgressRenderer(isEnabled: enabled, barWidth: enabled ? max(10, min(40, Console.terminalWidth - 40)) : 24) {
            Console.write($0, to: STDERR_FILENO)
        }
    }

    /// The bar's text for `snapshot` (no control characters).
    static func line(for snapshot: Snapshot, barWidth: Int) -> String {
        let fraction = snapshot.total > 0 ? Double(snapshot.finished) / Double(snapshot.total) : 1
        let filled = min(barWidth, Int((fraction * Double(barWidth)).rounded(.down)))
        var text = "[" + String(repeating: "#", count: filled) + String(repeating: "-", count: barWidth - filled) + "]"
        let width = String(snapshot.total).count
        let finished = String(snapshot.finished)
        text += " " + String(repeating: " ", count: max(0, width - finished.count)) + finished + "/\(snapshot.total)"
        if snapshot.failed > 0 { text += "  \(snapshot.failed) failed" }
        if let bytes = snapshot.bytes { text += "  " + Formatting.bytes(bytes) }
        return text
    }

    /// Shows `change` applied to the current snapshot.
    func update(_ change: (inout Snapshot) -> Void) {
        guard isEnabled else { return }
        let text = state.withLock { state -> String? in
            let finishedBefore = state.snapshot.finished
            change(&state.snapshot)
            let now = ContinuousClock.now
            if state.snapshot.finished == finishedBefore, let last = state.lastDraw, now - last < minimumInterval {
                return nil
            }
            state.lastDraw = now
            state.visible = true
            return "\r\u{1B}[2K" + Self.line(for: state.snapshot, barWidth: barWidth)
        }
        if let text { write(text) }
    }

    /// Runs `body` (which prints whole lines) with the bar taken off the screen, then
    /// draws the bar again below them. `body` runs under the renderer's lock, so that no
    /// redraw lands in the middle of a line: it must not call the renderer.
    func aside(_ body: () -> Void) {
        guard isEnabled else {
            body()
            return
        }
        state.withLock { state in
            if state.visible { write("\r\u{1B}[2K") }
            body()
            if state.visible { write("\r\u{1B}[2K" + Self.line(for: state.snapshot, barWidth: barWidth)) }
        }
    }

    /// Takes the bar off the screen for good.
    func finish() {
        guard isEnabled else { return }
        state.withLock { state in
            if state.visible { write("\r\u{1B}[2K") }
            state.visible = false
        }
    }
}
