import CCurl
import CHeaderConstants
import Glibc
import Synchronization

/// The HTTP transfer engine: one dedicated thread per engine drives a libcurl multi handle, runs
/// timers and posted work, and calls every `TransferCallbacks` closure.
///
/// All methods may be called from any thread, including from the transfer thread inside callbacks.
/// After `shutdown()` new transfers complete at once with `.cancelled` on the calling thread, and
/// posted work and timers are dropped.
final class HTTPEngine: TransferEngine, @unchecked Sendable {
    /// The library version sent in the User-Agent: the header's, as `fbs_version()` reports.
    static let libraryVersion = FBS_VERSION_STRING

    let name: String
    private let loop: TransferLoop        // confined to `thread`
    private let inbox: Inbox
    private let thread: pthread_t
    private let nextTransfer = Atomic<UInt64>(1)
    private let nextTimer = Atomic<UInt64>(1)
    private let threadGone = Atomic<Bool>(false)
    private let lifecycle = Locked(Lifecycle())

    private struct Lifecycle {
        var joinClaimed = false
    }

    /// Starts the transfer thread. Throws `.internalError` if libcurl is unusable or the thread cannot start.
    convenience init(name: String) throws(StorageError) {
        try self.init(name: name, tuning: .default)
    }

    init(name: String, tuning: EngineTuning) throws(StorageError) {
        _ = try CurlGlobal.ensureInitialized()
        self.name = name
        let loop = try TransferLoop(tuning: tuning)
        self.loop = loop
        inbox = loop.inbox
        let context = Unmanaged.passRetained(loop).toOpaque()
        var thread = pthread_t()
        let rc = pthread_create(&thread, nil, { context in
            let loop = Unmanaged<TransferLoop>.fromOpaque(context!).takeRetainedValue()
            loop.run()
            return nil
        }, context)
        guard rc == 0 else {
            Unmanaged<TransferLoop>.fromOpaque(context).release()
            loop.discard()
            throw StorageError(code: .internalError, message: "cannot start the transfer thread (pthread_create: \(rc))")
        }
        self.thread = thread
    }

    deinit {
        shutdown()
        // shutdown() on the transfer thread itself cannot join: let the thread clean up after itself.
        let unjoined = lifecycle.withLock { s in
            defer { s.joinClaimed = true }
            return !s.joinClaimed
        }
        if unjoined { pthread_detach(thread) }
    }

    /// True on this engine's transfer thread.
    var isTransferThread: Bool {
        !threadGone.load(ordering: .acquiring) && pthread_equal(pthread_self(), thread) != 0
    }

    /// Starts a transfer; its callbacks run on the transfer thread, `onComplete` exactly once.
    @discardableResult
    func start(_ request: HTTPRequest, _ callbacks: TransferCallbacks) -> TransferID {
        let id = TransferID(raw: nextTransfer.wrappingAdd(1, ordering: .relaxed).oldValue)
        let callbacks = callbacks.logging(request)
        if !inbox.post(.start(id, request, callbacks)) {
            callbacks.onComplete(.failure(.cancelled))
        }
        return id
    }

    /// Cancels a transfer: unless it already completed, its `onComplete(.failure(.cancelled))` runs on
    /// the transfer thread soon, and when called on the transfer thread no other callback of it runs
    /// before that.
    func cancel(_ id: TransferID) {
        if isTransferThread { loop.markCancelled(id) }
        _ = inbox.post(.cancel(id))
    }

    /// Runs `work` on the transfer thread soon, after work posted before it (FIFO).
    func perform(_ work: @escaping @Sendable () -> Void) {
        _ = inbox.post(.perform(work))
    }

    /// Runs `work` on the transfer thread after `seconds` (monotonic clock). Timers due at the same
    /// moment run in scheduling order.
    @discardableResult
    func schedule(after seconds: Double, _ work: @escaping @Sendable () -> Void) -> TimerID {
        let id = TimerID(raw: nextTimer.wrappingAdd(1, ordering: .relaxed).oldValue)
        let deadline = MonotonicClock.deadline(after: seconds)
        if isTransferThread {
            loop.addTimerNow(id, deadline: deadline, work)
        } else {
            _ = inbox.post(.addTimer(id, deadline: deadline, work))
        }
        return id
    }

    func now() -> Double { MonotonicClock.seconds() }

    /// Cancels a timer. On the transfer thread it is guaranteed not to run afterwards; from another
    /// thread it may already be running.
    func cancelTimer(_ id: TimerID) {
        if isTransferThread { loop.cancelTimerNow(id) }
        _ = inbox.post(.cancelTimer(id))   // also covers an add still queued behind this call
    }

    /// Cancels every transfer (each `onComplete` runs with `.cancelled`), drops timers and posted work,
    /// stops the thread and joins it. Idempotent. On the transfer thread it stops without joining.
    func shutdown() {
        _ = inbox.close()
        guard !isTransferThread else { return }
        let join = lifecycle.withLock { s in
            defer { s.joinClaimed = true }
            return !s.joinClaimed
        }
        guard join else { return }
        pthread_join(thread, nil)
        threadGone.store(true, ordering: .releasing)
    }
}
