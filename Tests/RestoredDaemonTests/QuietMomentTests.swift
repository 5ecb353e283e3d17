import Synchronization
import Testing

@testable import RestoredDaemon

/// The upgrade's wait for a quiet moment: no clock, a look at each nudge.
struct QuietMomentTests {
    @Test("Quiet already: no wait. Busy: the wait ends at the first nudge after which restored is quiet, not at nudges before; a nudge given before anyone waits is kept")
    func waitsForNudges() async {
        let busy = Mutex(true)
        let quiet = QuietMoment()
        #expect(await quiet.wait { true })

        let waiter = Task { await quiet.wait { !busy.withLock { $0 } } }
        quiet.nudge()
        // Still busy: the waiter looked and waits on.
        try? await Task.sleep(for: .milliseconds(50))
        busy.withLock { $0 = false }
        quiet.nudge()
        #expect(await waiter.value)

        // A nudge while nobody waits: the next waiter looks once more after its first look.
        let flipped = Mutex(false)
        quiet.nudge()
        #expect(await quiet.wait {
            // Busy at the first look, quiet at the look the kept nudge brings.
            flipped.withLock { seen in defer { seen = true }; return seen }
        })
    }
}
