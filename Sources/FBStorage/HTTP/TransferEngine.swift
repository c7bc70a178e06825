/// What the state machines (retried requests, upload and download tasks) need of an engine:
/// transfers, timers, posted work and a clock, all on one transfer thread.
///
/// This is the seam between the service layer and libcurl. `HTTPEngine` is the real one; tests
/// drive the state machines with a deterministic fake and a virtual clock instead (as swift-nio's
/// EmbeddedEventLoop does), so no test orders events with sleeps.
protocol TransferEngine: AnyObject, Sendable {
    /// Starts a transfer; its callbacks run on the transfer thread, `onComplete` exactly once.
    @discardableResult
    func start(_ request: HTTPRequest, _ callbacks: TransferCallbacks) -> TransferID

    /// Cancels a transfer: unless it already completed, its `onComplete(.failure(.cancelled))`
    /// runs soon, and when called on the transfer thread no other callback of it runs before that.
    func cancel(_ id: TransferID)

    /// Runs `work` on the transfer thread soon, after work posted before it (FIFO).
    func perform(_ work: @escaping @Sendable () -> Void)

    /// Runs `work` on the transfer thread after `seconds` of `now()`.
    @discardableResult
    func schedule(after seconds: Double, _ work: @escaping @Sendable () -> Void) -> TimerID

    /// Cancels a timer; on the transfer thread it is guaranteed not to run afterwards.
    func cancelTimer(_ id: TimerID)

    /// Seconds on the engine's monotonic clock: the clock of every deadline and backoff.
    func now() -> Double

    /// True on the transfer thread.
    var isTransferThread: Bool { get }

    /// Cancels every transfer, drops timers and posted work, and stops. Idempotent.
    func shutdown()
}

extension TransferEngine {
    /// Traps in debug builds when state-machine code runs off the transfer thread, where its
    /// unlocked state would race.
    func assertOnTransferThread(_ function: StaticString = #function) {
        assert(isTransferThread, "\(function) runs only on the transfer thread")
    }
}
