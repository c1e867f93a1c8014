import Testing
@testable import WebImage
import WebImageLocking

/// Priorities linked into one another: the highest holds, a cut link lets go, and chains
/// pass changes along.
@Suite("Shared priority")
struct SharedPriorityTests {
    @Test("a linked priority holds the target up while linked, and lets go when cut")
    func linkHoldsAndCutLetsGo() {
        let work = SharedPriority(.low)
        let visible = SharedPriority(.high)
        let link = visible.link(into: work)
        #expect(work.value == .high)
        #expect(work.base == .low)
        link.cut()
        #expect(work.value == .low)
    }

    @Test("a change travels along a chain of links, both ways, and the highest of several holds")
    func chainsAndSeveralInputs() {
        let download = SharedPriority(nil)
        let driver = SharedPriority(.low)
        let joiner = SharedPriority(.normal)
        let driverLink = driver.link(into: download)
        let joinerLink = joiner.link(into: driver)
        #expect(download.value == .normal)
        joiner.setBase(.high)
        #expect(download.value == .high)
        driver.setBase(.normal)
        #expect(download.value == .high, "the joiner's high still holds")
        joinerLink.cut()
        #expect(download.value == .normal)
        driverLink.cut()
        #expect(download.value == .low, "with nothing linked in, a priority without a base is low")
    }

    @Test("observers hear each change once, with increasing generations, and nothing when the value stays")
    func observersHearChanges() {
        let priority = SharedPriority(.low)
        let heard = Recorded()
        let observation = priority.observe { value, generation in heard.append((value, generation)) }
        #expect(observation.value == .low)
        priority.setBase(.low)
        priority.setBase(.high)
        priority.setBase(.normal)
        priority.removeObserver(observation.id)
        priority.setBase(.low)
        #expect(heard.values.map(\.0) == [.high, .normal])
        #expect(heard.values.map(\.1) == [observation.generation + 1, observation.generation + 2])
    }

    private final class Recorded: Sendable {
        private let state = Locked<[(DownloadPriority, Int)]>([])
        func append(_ value: (DownloadPriority, Int)) { state.withLock { $0.append(value) } }
        var values: [(DownloadPriority, Int)] { state.withLock { $0 } }
    }
}
