/// Requests sent without waiting for their answer whose effect still matters while their owner
/// closes: an upload's cancel command, which ends its session on the server. Closing stops the
/// transfer thread, which would cut them, so `close()` first gives those in flight a short grace.
final class FarewellRequests: @unchecked Sendable {
    /// How long a close waits for them at most: enough for one request over a slow link, short
    /// enough that a program exiting with the server unreachable is not held up.
    static let closeGrace = 3.0

    private let lock = ConditionLock()
    private var inFlight = 0   // under lock

    /// Counts one sent; `end()` it when its transfer completes, however it completes.
    func begin() { lock.withLock { inFlight += 1 } }

    func end() {
        lock.withLock { inFlight -= 1 }
        lock.broadcast()
    }

    /// Waits until none is in flight, or `closeGrace` has passed.
    func waitForClose() {
        _ = lock.wait(until: MonotonicClock.seconds() + Self.closeGrace) { inFlight == 0 }
    }
}
