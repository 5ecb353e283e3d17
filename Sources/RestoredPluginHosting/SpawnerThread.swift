import Dispatch
import Synchronization

/// The one thread that starts plugin hosts, alive as long as restored.
///
/// A helper's death signal (`PR_SET_PDEATHSIG`) fires when the *thread*
/// that created it ends, not the process: a helper spawned from a
/// libdispatch worker would be killed when that worker is retired. Every
/// spawn therefore runs here, on a thread that never ends.
final class SpawnerThread: Sendable {
    /// The process's spawner thread, started on first use.
    static let shared = SpawnerThread()

    private let jobs = Mutex<[@Sendable () -> Void]>([])
    private let waiting = DispatchSemaphore(value: 0)

    private init() {
        let context = Unmanaged.passRetained(self).toOpaque()
        var thread = pthread_t()
        let created = pthread_create(&thread, nil, { context in
            let spawner = Unmanaged<SpawnerThread>.fromOpaque(context!).takeUnretainedValue()
            spawner.serve()
        }, context)
        precondition(created == 0, "cannot start the thread that spawns plugin hosts (error \(created))")
        pthread_detach(thread)
    }

    /// Runs `body` on the spawner thread and returns its result.
    func run<Value: Sendable>(_ body: @escaping @Sendable () -> Value) -> Value {
        let result = Mutex<Value?>(nil)
        let done = DispatchSemaphore(value: 0)
        jobs.withLock { $0.append { result.withLock { $0 = body() }; done.signal() } }
        waiting.signal()
        done.wait()
        return result.withLock { $0! }
    }

    private func serve() -> Never {
        while true {
            waiting.wait()
            let job = jobs.withLock { $0.isEmpty ? nil : $0.removeFirst() }
            job?()
        }
    }
}

#if canImport(Glibc)
import Glibc
#endif
