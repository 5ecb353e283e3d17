import Synchronization

/// A value handed over once from a dispatch queue to one waiting task.
final class OneShot<Value: Sendable>: Sendable {
    private let state = Mutex<(value: Value?, waiter: CheckedContinuation<Value, Never>?)>((nil, nil))

    /// Hands `value` over; call once.
    func fulfil(_ value: Value) {
        let waiter = state.withLock { state in
            if let waiter = state.waiter {
                state.waiter = nil
                return Optional(waiter)
            }
            state.value = value
            return nil
        }
        waiter?.resume(returning: value)
    }

    /// The value, once it is there; call from one task.
    func value() async -> Value {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { state in
                if let value = state.value { return Optional(value) }
                state.waiter = continuation
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }
}
