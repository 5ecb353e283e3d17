import Glibc
import SystemSupport

/// A lock tests take around what they cannot share with each other while
/// Swift Testing runs them in parallel, such as the running programs the
/// session plugin scans for (an xterm of one test is a running xterm for
/// every other test's save or restore). An exclusive `flock` on
/// `/tmp/restored-test-NAME.lock`, so it holds across test processes too.
public final class SharedTestLock {
    private var descriptor: Int32

    private init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    /// Waits (off the cooperative pool) until the lock `name` is this test's.
    public static func acquire(_ name: String) async throws -> SharedTestLock {
        let path = "/tmp/restored-test-\(name).lock"
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw TestSetupError("cannot open \(path): \(String(cString: strerror(errno)))") }
        let locked: Int32 = await OffPool.run {
            var result: Int32
            repeat { result = flock(descriptor, LOCK_EX) } while result != 0 && errno == EINTR
            return result
        }
        guard locked == 0 else {
            close(descriptor)
            throw TestSetupError("cannot lock \(path)")
        }
        return SharedTestLock(descriptor: descriptor)
    }

    /// Releases the lock (also when the object goes).
    public func release() {
        guard descriptor >= 0 else { return }
        close(descriptor)
        descriptor = -1
    }

    deinit { release() }
}
