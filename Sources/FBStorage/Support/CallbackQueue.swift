#if canImport(Glibc)
import Glibc
#endif

/// The storage's callback thread: runs user callbacks (observers, completions) one at a time,
/// in the order they were enqueued, with no library lock held.
///
/// User code never runs on the transfer thread, so a slow callback (a Python observer waiting
/// for the GIL) cannot stall transfers, and a callback may call back into the library.
final class CallbackQueue: @unchecked Sendable {
    private let state = ConditionLock()
    /// Taken jobs are set to nil at once, so a finished job releases what it captured.
    private var jobs: [(@Sendable () -> Void)?] = []
    private var head = 0
    /// Jobs that run before `jobs`, in their own order (see `enqueue(_:aheadOfEvents:)`).
    private var urgent: [@Sendable () -> Void] = []
    private var stopping = false
    private var detachOnExit = false
    private var thread: pthread_t?
    private var threadID: pthread_t?

    init(name: String) throws(StorageError) {
        let box = Unmanaged.passRetained(self)
        var handle = pthread_t()
        let result = pthread_create(&handle, nil, { context in
            let queue = Unmanaged<CallbackQueue>.fromOpaque(context!).takeRetainedValue()
            queue.run()
            return nil
        }, box.toOpaque())
        guard result == 0 else {
            box.release()
            throw StorageError(code: .internalError, message: "Could not start the callback thread (errno \(result))")
        }
        thread = handle
        _ = name
    }

    /// True on any storage's callback thread, where waiting for a callback could wait for itself
    /// (or for another callback thread waiting on this one).
    static var isAnyCallbackThread: Bool { pthread_getspecific(callbackThreadKey) != nil }

    /// Set (to a non-nil marker) on every callback thread.
    private static let callbackThreadKey: pthread_key_t = {
        var key = pthread_key_t()
        precondition(pthread_key_create(&key, nil) == 0, "pthread_key_create failed")
        return key
    }()

    /// True on this queue's own thread (where blocking on the queue would deadlock).
    var isCurrent: Bool {
        guard let threadID = state.withLock({ threadID }) else { return false }
        return pthread_equal(threadID, pthread_self()) != 0
    }

    /// Enqueues a job; returns false (and drops it) once the queue has stopped accepting work.
    /// A job `aheadOfEvents` runs before the jobs already waiting: it reports a state that
    /// came before them (a new observer's call for a task that already resumed).
    @discardableResult
    func enqueue(aheadOfEvents: Bool = false, _ job: @escaping @Sendable () -> Void) -> Bool {
        let accepted = state.withLock { () -> Bool in
            guard !stopping else { return false }
            if aheadOfEvents { urgent.append(job) } else { jobs.append(job) }
            return true
        }
        if accepted { state.broadcast() }
        return accepted
    }

    /// Runs every job already enqueued, then stops the thread. Waits for it unless called on the
    /// queue's own thread, where it returns at once and the thread ends after the current job.
    func shutdown() {
        let onOwnThread = isCurrent
        let joinable = state.withLock { () -> pthread_t? in
            stopping = true
            defer { thread = nil }
            // Nobody can join a thread from itself: it detaches when its loop ends.
            if onOwnThread && thread != nil { detachOnExit = true }
            return onOwnThread ? nil : thread
        }
        state.broadcast()
        if let joinable { pthread_join(joinable, nil) }
    }

    private func run() {
        state.withLock { threadID = pthread_self() }
        pthread_setspecific(Self.callbackThreadKey, UnsafeRawPointer(bitPattern: 1))
        while let job = next() { job() }
        if state.withLock({ detachOnExit }) { pthread_detach(pthread_self()) }
    }

    private func next() -> (@Sendable () -> Void)? {
        var job: (@Sendable () -> Void)?
        _ = state.wait(until: nil) { head < jobs.count || !urgent.isEmpty || stopping }
        state.withLock {
            if !urgent.isEmpty {
                job = urgent.removeFirst()
            } else if head < jobs.count {
                job = jobs[head]
                jobs[head] = nil
                head += 1
                if head > 1024 && head * 2 > jobs.count {
                    jobs.removeFirst(head)
                    head = 0
                }
            }
        }
        return job
    }
}
