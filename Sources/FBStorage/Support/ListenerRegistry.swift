/// The listeners of a service (Auth, App Check): registered under handles, called on the
/// service's callback thread one at a time, in order. Removing one waits until a call of it that
/// is running has returned, so its owner may free what it captured.
///
/// It keeps its table under the owner's lock, so that a listener is registered in the same step
/// as the owner's state its first call reports is read: no change falls between the two.
final class ListenerRegistry<Listener: Sendable>: @unchecked Sendable {
    private let lock: ConditionLock
    private let callbackQueue: CallbackQueue
    /// Guarded by `lock`.
    private var listeners: [Int64: Listener] = [:]
    private var nextHandle: Int64 = 1

    init(lock: ConditionLock, callbackQueue: CallbackQueue) {
        self.lock = lock
        self.callbackQueue = callbackQueue
    }

    /// Registers `listener` and returns its handle. `firstCall` runs under the owner's lock and
    /// says what the listener hears at once (nil: nothing until the next `notify`).
    func add(_ listener: Listener, firstCall: () -> (@Sendable (Listener) -> Void)?) -> Int64 {
        let (handle, call) = lock.withLock { () -> (Int64, (@Sendable (Listener) -> Void)?) in
            let handle = nextHandle
            nextHandle += 1
            listeners[handle] = listener
            return (handle, firstCall())
        }
        if let call { callbackQueue.enqueue { [self] in deliver(call, to: handle) } }
        return handle
    }

    /// Removes a listener. When this returns (off the callback thread) it does not run again.
    /// - Throws: `invalidArgument` for an unknown handle.
    func remove(_ handle: Int64) throws(StorageError) {
        guard lock.withLock({ listeners.removeValue(forKey: handle) }) != nil else {
            throw .invalidArgument("No listener has the handle \(handle)")
        }
        guard !callbackQueue.isCurrent else { return }
        // A call of it may be running now: wait until the callback thread is past it.
        let passed = Completion<Void>()
        if callbackQueue.enqueue(aheadOfEvents: true, { passed.complete(()) }) { passed.wait() }
    }

    /// Removes every listener (their owner is going away), waiting as `remove` does.
    func removeAll() {
        let handles = lock.withLock { Array(listeners.keys) }
        for handle in handles { try? remove(handle) }
    }

    /// Calls `call` with each listener `included` picks (in the order they were added), on the
    /// callback thread. Call it without holding the owner's lock.
    func notify(_ included: (Listener) -> Bool = { _ in true }, _ call: @escaping @Sendable (Listener) -> Void) {
        let handles = lock.withLock { listeners.filter { included($0.value) }.keys.sorted() }
        for handle in handles { callbackQueue.enqueue { [self] in deliver(call, to: handle) } }
    }

    private func deliver(_ call: @Sendable (Listener) -> Void, to handle: Int64) {
        guard let listener = lock.withLock({ listeners[handle] }) else { return }
        call(listener)
    }
}
