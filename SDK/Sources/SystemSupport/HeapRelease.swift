internal import CRestoredSupport
import Dispatch
import Synchronization

/// Gives the memory a save or restore round freed back to the system
/// (restored after each round, a plugin host after each walk).
///
/// A round at 100 apps decodes, checks and encodes megabytes of archives on
/// many threads; glibc's allocator keeps what they freed in its arenas, so
/// an idle restored would stay as large as its busiest moment (78 MiB after
/// the login restore of 100 apps against 55 MiB idle, in
/// `restored-bench suspend`). After each round, `malloc_trim(0)` returns the
/// free pages of every arena. It runs on a background queue two seconds
/// after the round has answered (a suspend's lock is not held for it, and
/// a login's burst of restores is over), at most one at a time: rounds that
/// end together share one.
public enum HeapRelease {
    private static let pending = Atomic<Bool>(false)

    /// How long after a round the heap is trimmed.
    static let delay = DispatchTimeInterval.seconds(2)

    /// Whether a trim may run now.
    public enum Moment: Sendable {
        /// Nothing else runs: trim now.
        case quiet
        /// Something runs: look again a little later.
        case busy
        /// The process ends: no trim is worth it.
        case never
    }

    /// Trims the heap a little later, off the caller's path, at a moment
    /// `moment` says nothing else runs (a trim holds each arena's lock
    /// while it works, so a round then would wait for it); until then it
    /// looks again at the same interval, and gives up when it says never.
    public static func soon(when moment: @escaping @Sendable () -> Moment = { .quiet }) {
        guard !pending.exchange(true, ordering: .acquiringAndReleasing) else { return }
        schedule(moment)
    }

    private static func schedule(_ moment: @escaping @Sendable () -> Moment) {
        DispatchQueue.global(qos: .background).asyncAfter(deadline: .now() + delay) {
            switch moment() {
            case .busy:
                schedule(moment)
            case .never:
                pending.store(false, ordering: .releasing)
            case .quiet:
                pending.store(false, ordering: .releasing)
                now()
            }
        }
    }

    /// Trims the heap now, on the calling thread.
    public static func now() {
        _ = c_restored_trim_heap()
    }
}
