/// A value delivered once by one thread and awaited by another.
final class Completion<Value>: @unchecked Sendable {
    private let lock = ConditionLock()
    private var value: Value?

    init() {}

    /// Stores the value and wakes the waiters; later calls are ignored.
    func complete(_ newValue: Value) {
        lock.withLock { if value == nil { value = newValue } }
        lock.broadcast()
    }

    /// Blocks until the value arrives.
    func wait() -> Value {
        _ = lock.wait(until: nil) { value != nil }
        return lock.withLock { value! }
    }
}
