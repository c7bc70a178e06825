#if canImport(Glibc)
import Glibc
#endif

/// The process-wide log hook: one handler for every storage, called on the transfer thread that
/// logs. Lines never contain headers, tokens or session IDs (see `LogRedaction`).
///
/// A read-write lock is held while a handler runs, so `setHandler` returns only once the previous
/// handler has returned, and transfer threads of different storages can log at the same time.
public enum LogHook {
    public typealias Handler = @Sendable (_ level: LogLevel, _ line: String) -> Void

    private final class Slot: @unchecked Sendable {
        let lock = UnsafeMutablePointer<pthread_rwlock_t>.allocate(capacity: 1)
        var handler: Handler?
        init() { pthread_rwlock_init(lock, nil) }
    }

    private static let slot = Slot()

    /// Installs `handler` (nil disables logging). Waits for calls of the previous one to return.
    public static func setHandler(_ handler: Handler?) {
        pthread_rwlock_wrlock(slot.lock)
        slot.handler = handler
        pthread_rwlock_unlock(slot.lock)
    }

    /// Sends one line to the handler, if any. `line` is only built when there is one.
    static func log(_ level: LogLevel, _ line: @autoclosure () -> String) {
        pthread_rwlock_rdlock(slot.lock)
        defer { pthread_rwlock_unlock(slot.lock) }
        guard let handler = slot.handler else { return }
        handler(level, line())
    }

    /// Whether a handler is installed (to skip work that only feeds the log).
    static var isEnabled: Bool {
        pthread_rwlock_rdlock(slot.lock)
        defer { pthread_rwlock_unlock(slot.lock) }
        return slot.handler != nil
    }
}
