/// A task's observer callback; runs on the storage's callback thread.
public typealias StorageTaskObserver = @Sendable (StorageTaskSnapshot) -> Void

/// An observable upload or download, as in the Apple SDK: events RESUME, PROGRESS, PAUSE, then
/// one SUCCESS or FAILURE, after which every observer is removed.
///
/// The order is the Apple SDK's: every PROGRESS event of a task is delivered before its SUCCESS or
/// FAILURE, which is its last. PROGRESS is reported per chunk sent or received, at least every
/// 256 KiB, at most every 50 ms below that, and coalesced: while one is undelivered, newer numbers
/// replace its snapshot instead of queueing another. So a fast link costs a few hundred events per
/// 128 MiB, a slow observer sees the latest numbers instead of a backlog, and the latest numbers
/// come before the end.
///
/// Subclasses run their state machine on the transfer thread and report through `emit`; this
/// class delivers events on the callback thread with no lock held while an observer runs.
public class StorageTask: StorageWork, @unchecked Sendable {
    public let storage: Storage
    public let reference: StorageReference
    /// This task's speed cap (bytes per second, 0: none), tightening the storage's; a change
    /// applies within a second to the request running.
    public let speedCap = SpeedCap()

    private typealias Observer = (handle: Int64, status: StorageTaskStatus, callback: StorageTaskObserver)

    private let state = ConditionLock()
    // Observers are only ever released outside `state`: dropping one may run code of the caller's
    // (the C API's destroy callback of its user_data), which may call back into the task.
    private var observers: [Observer] = []
    private var nextHandle: Int64 = 1
    private var latest: StorageTaskSnapshot
    /// A PROGRESS event waiting on the callback thread; newer progress replaces it in place.
    private var queuedProgress: StorageTaskSnapshot?
    /// A paced PROGRESS not queued yet (see `emit`), and the last PROGRESS queued.
    private var heldProgress: StorageTaskSnapshot?
    private var lastQueuedProgress: (bytes: Int64, time: Double) = (0, -.infinity)
    /// A PROGRESS event's observers are running on the callback thread.
    private var deliveringProgress = false
    /// Holds a layer put on the task's end (`holdEnd`), and the end waiting for the PROGRESS
    /// events on their way and for those holds (`afterProgressDelivered`).
    private var endHolds = 0
    private var endAfterProgress: (@Sendable () -> Void)?
    private var cancelRequested = false
    /// Events enqueued for the callback thread and not yet delivered, per status.
    private var undelivered: [StorageTaskStatus: Int] = [:]
    private var terminalDelivered = false
    /// Observers owed an "already in that status" call (queued by `observe`), by handle.
    private var owedAtOnce: [Int64: (status: StorageTaskStatus, callback: StorageTaskObserver)] = [:]
    /// The observer running on the callback thread; a removal from another thread waits for it.
    private var runningObserver: Int64?
    /// Handlers of the task's end (`onEnd`), run on the transfer thread.
    private var endHandlers: [StorageTaskObserver] = []

    init(reference: StorageReference, totalBytes: Int64) {
        self.storage = reference.storage
        self.reference = reference
        latest = StorageTaskSnapshot(status: .unknown, bytesTransferred: 0, totalBytes: totalBytes, reference: reference)
    }

    // MARK: Public API

    /// The latest snapshot.
    public var snapshot: StorageTaskSnapshot { state.withLock { latest } }

    /// Adds an observer for `status`; if the task is already in that status it also fires once
    /// at once (for RESUME: once the task started, unless it is paused or its end was delivered).
    /// Once SUCCESS or FAILURE was delivered, only an observer of that final status still runs,
    /// once. Returns a handle for `removeObserver`.
    public func observe(_ status: StorageTaskStatus, _ callback: @escaping StorageTaskObserver) throws(StorageError) -> Int64 {
        guard status != .unknown else {
            throw StorageError(code: .invalidArgument, message: "Cannot observe the UNKNOWN status")
        }
        let (handle, current) = state.withLock { () -> (Int64, StorageTaskSnapshot?) in
            let handle = nextHandle
            nextHandle += 1
            if !terminalDelivered { observers.append((handle, status, callback)) }
            // An event of this status on its way to the callback thread will reach the new observer.
            if undelivered[status, default: 0] > 0 { return (handle, nil) }
            let current: StorageTaskSnapshot?
            if latest.status == status {
                current = latest
            } else if status == .resume && !terminalDelivered && latest.status != .unknown && latest.status != .pause {
                // Every started task resumed once: observers added right after starting see it,
                // even when a fast task is already running (PROGRESS) or its end is still queued.
                current = latest.with(status: .resume)
            } else {
                current = nil
            }
            if current != nil { owedAtOnce[handle] = (status, callback) }
            return (handle, current)
        }
        if let current {
            // A RESUME goes ahead of events still waiting (a fast task's first PROGRESS): it came
            // first. Any other status reports the current state, later than what is waiting (a
            // PROGRESS held back by the pacing must not pass a RESUME on its way).
            // The call looks the observer up, so that a removal meanwhile releases it at once.
            storage.callbackQueue.enqueue(aheadOfEvents: status == .resume) { [self] in
                invoke(handle, current) {
                    guard let owed = owedAtOnce[handle], mayRunAtOnce(owed.status) else { return nil }
                    owedAtOnce[handle] = nil
                    return owed.callback
                }
            }
        }
        return handle
    }

    /// Removes one observer. Once a removal returns, the removed observers never run again: if one
    /// is running on the callback thread, the removal waits for it to return (unless called from a
    /// callback thread, where the running callback may be the caller).
    public func removeObserver(_ handle: Int64) {
        removeObservers { h, _ in h == handle }
    }

    public func removeAllObservers(for status: StorageTaskStatus) {
        removeObservers { _, s in s == status }
    }

    public func removeAllObservers() {
        removeObservers { _, _ in true }
    }

    private func removeObservers(where matches: (Int64, StorageTaskStatus) -> Bool) {
        var dropped = state.withLock { () -> [Observer] in
            var dropped = observers.filter { matches($0.handle, $0.status) }
            observers.removeAll { matches($0.handle, $0.status) }
            for (handle, owed) in owedAtOnce where matches(handle, owed.status) {
                dropped.append((handle, owed.status, owed.callback))
                owedAtOnce[handle] = nil
            }
            return dropped
        }
        let removed = Set(dropped.map(\.handle))
        dropped = []   // released here, with no lock held (one running now is released when it returns)
        guard !removed.isEmpty else { return }
        state.broadcast()   // a wait may be waiting for a removed observer's "at once" call
        guard !CallbackQueue.isAnyCallbackThread else { return }
        _ = state.wait(until: nil) { runningObserver.map { !removed.contains($0) } ?? true }
    }

    /// Calls `handler` once with the final snapshot when the task ends: on the transfer thread,
    /// without waking the callback thread, or at once on the caller's thread if it already ended.
    /// It may run before the task's PROGRESS events reached their observers: a completion that
    /// observers may watch runs from SUCCESS and FAILURE observers instead (FirebaseStorage's).
    /// `handler` must return quickly and never block.
    public func onEnd(_ handler: @escaping StorageTaskObserver) {
        let ended = state.withLock { () -> StorageTaskSnapshot? in
            guard latest.status.isTerminal else {
                endHandlers.append(handler)
                return nil
            }
            return latest
        }
        if let ended { handler(ended) }
    }

    /// Called on the transfer thread (from a download's sink or an upload's read function),
    /// they act at once: no further byte of the task reaches the sink after `pause` returns.
    public func pause() { onTransferThread { [self] in pauseOnTransferThread() } }
    public func resume() { onTransferThread { [self] in resumeOnTransferThread() } }
    public func cancel() {
        state.withLock { cancelRequested = true }
        onTransferThread { [self] in cancelOnTransferThread() }
    }

    /// cancel() was called: a task checks it before it commits its end, so a cancel() that
    /// returned before then is never lost behind the work queued for the transfer thread.
    var isCancelRequested: Bool { state.withLock { cancelRequested } }

    private func onTransferThread(_ work: @escaping @Sendable () -> Void) {
        if storage.engine.isTransferThread { work() } else { storage.engine.perform(work) }
    }

    /// Waits until the task ended and its SUCCESS or FAILURE observers returned; nil timeout
    /// waits forever. Returns the final snapshot, or nil on timeout.
    public func wait(timeout: Double?) throws(StorageError) -> StorageTaskSnapshot? {
        let delivered = state.withLock { terminalDelivered }
        if !delivered && storage.callbackQueue.isCurrent {
            throw StorageError(code: .invalidArgument,
                               message: "Waiting for an unfinished task on its callback thread would never return")
        }
        let deadline = timeout.map { MonotonicClock.seconds() + max($0, 0) }
        // Also the "at once" calls owed to observers added late (a task may end before its first
        // observer is added): once wait returns, no observer of the task runs any more, so a
        // binding may release what its callbacks need. Not on a callback thread, where an owed
        // call may be queued behind the caller, nor once the storage is closed: its callbacks
        // ran, and calls owed since never run.
        let ignoreOwed = CallbackQueue.isAnyCallbackThread || storage.isClosed
        guard state.wait(until: deadline, {
            terminalDelivered && (ignoreOwed || (owedAtOnce.isEmpty && runningObserver == nil))
        }) else { return nil }
        return snapshot
    }

    // MARK: For subclasses (transfer thread)

    func start() throws(StorageError) {
        try storage.register(self)
        storage.engine.perform { [self] in startOnTransferThread() }
    }

    func startOnTransferThread() {}
    func pauseOnTransferThread() {}
    func resumeOnTransferThread() {}
    func cancelOnTransferThread() {}
    func cancelForClose() { cancelOnTransferThread() }
    func stopForClose() { cancelForClose() }

    /// A request the task needs could not start: if the storage closed meanwhile, that is the
    /// cancellation `close()` is about to deliver, not a caller mistake.
    func closedOr(_ error: StorageError) -> StorageError {
        storage.isClosed ? StorageError(code: .cancelled, message: "The storage was closed; \(reference.path.gsURL) was cancelled") : error
    }

    /// Records a new state and schedules its delivery. PROGRESS is coalesced with an undelivered
    /// PROGRESS event (its snapshot is replaced), so a slow observer sees the latest numbers
    /// instead of a backlog. A `paced` PROGRESS (one per chunk sent or received) is queued only
    /// when `progressStep` bytes moved or `progressInterval` passed since the last one queued;
    /// one held back goes out before the task's next event of another status, so observers
    /// always have the latest numbers before a PAUSE or the end.
    func emit(_ status: StorageTaskStatus, bytes: Int64, total: Int64, error: StorageError? = nil,
              metadata: StorageMetadata? = nil, paced: Bool = false) {
        storage.engine.assertOnTransferThread()
        let snapshot = StorageTaskSnapshot(status: status, bytesTransferred: bytes, totalBytes: total,
                                           error: error, metadata: metadata, reference: reference)
        let now = storage.engine.now()
        var endedHere = false
        var dropped: [Observer] = []
        let (progressJob, eventJob) = state.withLock { () -> (Bool, Bool) in
            guard !latest.status.isTerminal else { return (false, false) }
            latest = snapshot
            var progressJob = false
            if status != .progress, let held = heldProgress {
                progressJob = queueProgress(held, at: now)
            }
            // No observer to call and nothing of this task waiting on the callback thread: the
            // event is delivered here, without waking that thread (a small upload nobody
            // observes cost ~11 thread switches).
            if !observers.contains(where: { $0.status == status }) && undelivered.values.allSatisfy({ $0 == 0 }) {
                if status.isTerminal {
                    dropped = markTerminalDelivered()
                    endedHere = true
                }
                return (progressJob, false)
            }
            if status == .progress {
                if paced && queuedProgress == nil && bytes - lastQueuedProgress.bytes < Self.progressStep
                    && now - lastQueuedProgress.time < Self.progressInterval {
                    heldProgress = snapshot
                    return (false, false)
                }
                return (queueProgress(snapshot, at: now), false)
            }
            undelivered[status, default: 0] += 1
            return (progressJob, true)
        }
        withExtendedLifetime(dropped) {}   // the observers of other statuses: released here, unlocked
        if status.isTerminal {
            storage.unregister(self)
            // Taken once: a later terminal emit of an ended task finds none.
            let handlers = state.withLock { () -> [StorageTaskObserver] in
                defer { endHandlers = [] }
                return endHandlers
            }
            for handler in handlers { handler(snapshot) }
        }
        if endedHere { state.broadcast() }
        if progressJob { storage.callbackQueue.enqueue { [self] in deliver(nil) } }
        if eventJob { storage.callbackQueue.enqueue { [self] in deliver(snapshot) } }
    }

    /// A paced PROGRESS is queued once this many bytes moved since the last one queued...
    static let progressStep: Int64 = 256 << 10
    /// ...or this many seconds passed (a slow link still reports each chunk, up to 20 a second).
    static let progressInterval = 0.05

    /// Under the lock: puts `progress` on its way to the callback thread, in place of a queued
    /// one's snapshot if there is one. True when a delivery job must be enqueued.
    private func queueProgress(_ progress: StorageTaskSnapshot, at now: Double) -> Bool {
        heldProgress = nil
        defer { queuedProgress = progress }
        guard queuedProgress == nil else { return false }
        lastQueuedProgress = (progress.bytesTransferred, now)
        undelivered[.progress, default: 0] += 1
        return true
    }

    /// Runs `end` on the transfer thread once the task's PROGRESS events on their way were
    /// delivered and every `holdEnd` was released: a pause() or cancel() that an observer of the
    /// last PROGRESS calls reaches the transfer thread before `end` does, so it takes effect
    /// however fast the last bytes came (`end` checks the task's state again). `end` always
    /// waits its turn behind the work posted to the transfer thread: an observer may have
    /// returned from its pause() while this thread was still busy with the last bytes.
    func afterProgressDelivered(_ end: @escaping @Sendable () -> Void) {
        storage.engine.assertOnTransferThread()
        let runsNow = state.withLock { () -> Bool in
            guard progressOnItsWay else { return true }
            endAfterProgress = end
            return false
        }
        if runsNow { storage.engine.perform(end) }
    }

    /// Holds the task's end (see `afterProgressDelivered`) until `releaseEnd()`: for a layer that
    /// forwards PROGRESS to an executor of its own (FirebaseStorage's `callbackQueue`), from a
    /// PROGRESS observer's call until the forwarded call returned, so that a pause() there takes
    /// effect as one from a core observer does.
    public func holdEnd() {
        state.withLock { endHolds += 1 }
    }

    public func releaseEnd() {
        state.withLock { endHolds -= 1 }
        runEndIfProgressDelivered()
    }

    /// Under the lock: a PROGRESS event is queued, being delivered, or held by a layer.
    private var progressOnItsWay: Bool { queuedProgress != nil || deliveringProgress || endHolds > 0 }

    private func runEndIfProgressDelivered() {
        let end = state.withLock { () -> (@Sendable () -> Void)? in
            guard !progressOnItsWay else { return nil }
            defer { endAfterProgress = nil }
            return endAfterProgress
        }
        if let end { storage.engine.perform(end) }
    }

    /// Runs on the callback thread: calls the observer `lookUp` finds (under the lock), marked as
    /// running so that a concurrent removal waits for it.
    private func invoke(_ handle: Int64, _ snapshot: StorageTaskSnapshot, _ lookUp: () -> StorageTaskObserver?) {
        var callback = state.withLock { () -> StorageTaskObserver? in
            let callback = lookUp()
            if callback != nil { runningObserver = handle }
            return callback
        }
        guard callback != nil else {
            state.broadcast()   // an owed call was dropped: a wait may be waiting for it
            return
        }
        callback?(snapshot)
        // Released before a removal waiting for this call returns: if it removed this observer,
        // the observer is gone (its user data released) by then.
        callback = nil
        state.withLock { runningObserver = nil }
        state.broadcast()
    }

    /// Runs on the callback thread; nil delivers the queued PROGRESS snapshot. Observers added
    /// meanwhile are left out (they get their own "already in that status" call); removed ones
    /// are skipped.
    private func deliver(_ event: StorageTaskSnapshot?) {
        let (snapshot, handles) = state.withLock { () -> (StorageTaskSnapshot?, [Int64]) in
            let snapshot = event ?? queuedProgress
            if event == nil {
                queuedProgress = nil
                deliveringProgress = true
            }
            guard let snapshot else { return (nil, []) }
            undelivered[snapshot.status, default: 1] -= 1
            return (snapshot, observers.filter { $0.status == snapshot.status }.map(\.handle))
        }
        guard let snapshot else { return }
        for handle in handles {
            invoke(handle, snapshot) { observers.first { $0.handle == handle }?.callback }
        }
        if event == nil {
            state.withLock { deliveringProgress = false }
            runEndIfProgressDelivered()
        }
        if snapshot.status.isTerminal {
            _ = state.withLock { markTerminalDelivered() }   // every observer, released unlocked
            state.broadcast()
        }
    }

    /// Under the lock: whether an observer's "already in that status" call may still run. Once the
    /// task's SUCCESS or FAILURE was delivered only that status's calls do, as in the Apple SDK
    /// (every observer is removed at the end); a RESUME owed from before the end is dropped.
    private func mayRunAtOnce(_ status: StorageTaskStatus) -> Bool {
        !terminalDelivered || status == latest.status
    }

    /// Under the lock: the task's last event has been delivered, so no observer runs again and
    /// `wait` may return (the caller broadcasts after unlocking). Returns the observers dropped,
    /// every one but those owed a call of the final status, for the caller to release unlocked.
    private func markTerminalDelivered() -> [Observer] {
        var dropped = observers
        observers.removeAll()
        for (handle, owed) in owedAtOnce where owed.status != latest.status {
            dropped.append((handle, owed.status, owed.callback))
            owedAtOnce[handle] = nil
        }
        terminalDelivered = true
        return dropped
    }
}
