import CCurl

/// Work posted to the transfer thread from any thread.
enum EngineCommand: Sendable {
    case start(TransferID, HTTPRequest, TransferCallbacks)
    case cancel(TransferID)
    case perform(@Sendable () -> Void)
    case addTimer(TimerID, deadline: UInt64, @Sendable () -> Void)
    case cancelTimer(TimerID)
    case stop
}

/// A `CURLM*` that may be handed across threads; only `curl_multi_wakeup` is called off the transfer thread.
struct MultiHandle: @unchecked Sendable {
    let raw: UnsafeMutableRawPointer
}

/// The locked FIFO from any thread to the transfer thread. Posting wakes a sleeping `curl_multi_poll`; after
/// `close()` posts are refused, so no wakeup can reach the multi handle once it is being torn down.
final class Inbox: Sendable {
    private struct State {
        var commands: [EngineCommand] = []
        var closed = false
        /// The transfer thread is in (or about to enter) `curl_multi_poll` with nothing queued.
        var sleeping = false
    }

    private let state = Locked(State())
    private let multi: MultiHandle

    init(multi: MultiHandle) {
        self.multi = multi
    }

    /// Appends `command`; false if the inbox is closed (the engine is shutting down). Only a
    /// sleeping transfer thread is woken: an awake one (the poster itself, or one still busy
    /// with the completion that let a caller go on to its next upload) looks at the inbox before
    /// it polls again, and a wakeup costs a system call here and two there.
    func post(_ command: EngineCommand) -> Bool {
        state.withLock { s in
            guard !s.closed else { return false }
            s.commands.append(command)
            // One wakeup per batch: the thread takes everything that is queued when it wakes.
            if s.commands.count == 1 && s.sleeping { curl_multi_wakeup(multi.raw) }
            return true
        }
    }

    /// Called by the transfer thread before it polls: true (and marked sleeping, so that the next
    /// post wakes it) when nothing is queued; false when it should take the queue first.
    func prepareToSleep() -> Bool {
        state.withLock { s in
            s.sleeping = s.commands.isEmpty
            return s.sleeping
        }
    }

    /// Called by the transfer thread when its poll returned.
    func awoke() {
        state.withLock { $0.sleeping = false }
    }

    /// Appends `.stop` and refuses every later post. False if it was already closed.
    func close() -> Bool {
        state.withLock { s in
            guard !s.closed else { return false }
            s.closed = true
            s.commands.append(.stop)
            if s.commands.count == 1 { curl_multi_wakeup(multi.raw) }
            return true
        }
    }

    /// Everything queued so far, oldest first.
    func take() -> [EngineCommand] {
        state.withLock { s in
            guard !s.commands.isEmpty else { return [] }
            defer { s.commands.removeAll(keepingCapacity: true) }
            return s.commands
        }
    }
}
