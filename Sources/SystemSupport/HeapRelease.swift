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
/// free pages of every arena. It runs on a background queue, after the
/// round has answered (a suspend's lock is not held for it), at most one
/// at a time: rounds that end together share one.
public enum HeapRelease {
    private static let pending = Atomic<Bool>(false)

    /// Trims the heap soon, off the caller's path.
    public static func soon() {
        guard !pending.exchange(true, ordering: .acquiringAndReleasing) else { return }
        DispatchQueue.global(qos: .background).async {
            pending.store(false, ordering: .releasing)
            now()
        }
    }

    /// Trims the heap now, on the calling thread.
    public static func now() {
        _ = c_restored_trim_heap()
    }
}
