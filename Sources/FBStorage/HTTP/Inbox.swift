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

/// The locked FIFO from any thread to the transfer thread. Posting wakes `curl_multi_poll`; after
/// `close()` posts are refused, so no wakeup can reach the multi handle once it is being torn down.
final class Inbox: Sendable {
    private struct State {
        var commands: [EngineCommand] = []
        var closed = false
    }

    private let state = Locked(State())
    private let multi: MultiHandle

    init(multi: MultiHandle) {
        self.multi = multi
    }

    /// Appends `command`; false if the inbox is closed (the engine is shutting down). The transfer
    /// thread itself posts with `wake` false: it looks at the inbox before it polls again, and
    /// a wakeup costs it two system calls (a small upload's start is posted from there).
    func post(_ command: EngineCommand, wake: Bool = true) -> Bool {
        state.withLock { s in
            guard !s.closed else { return false }
            s.commands.append(command)
            // One wakeup per batch: the thread takes everything that is queued when it wakes.
            if s.commands.count == 1 && wake { curl_multi_wakeup(multi.raw) }
            return true
        }
    }

    /// True when nothing is queued.
    var isEmpty: Bool {
        state.withLock { $0.commands.isEmpty }
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
