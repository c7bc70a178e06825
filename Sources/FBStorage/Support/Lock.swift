#if canImport(Glibc)
import Glibc
#endif

/// A pthread mutex with a condition variable: the core's one lock primitive (`Locked` wraps it
/// around a value).
///
/// Pthreads rather than `Synchronization.Mutex`: on Linux a contended Mutex is handed over inside
/// the kernel (priority-inheritance futex), where ThreadSanitizer cannot see it, so
/// `make sanitize-thread` reported every access under a Mutex as a race. ThreadSanitizer
/// intercepts pthread mutexes. The core avoids Foundation (see docs/architecture.md), hence no NSLock.
final class ConditionLock: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    init() {
        pthread_mutex_init(mutex, nil)
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    func withLock<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }

    /// Waits until `isDone` holds (checked under the lock) or the monotonic `deadline` (seconds,
    /// `MonotonicClock.seconds()` clock) passes; nil waits forever. Returns whether `isDone` held.
    func wait(until deadline: Double?, _ isDone: () -> Bool) -> Bool {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        while !isDone() {
            guard let deadline else {
                pthread_cond_wait(condition, mutex)
                continue
            }
            var time = timespec()
            time.tv_sec = Int(deadline)
            time.tv_nsec = Int((deadline - Double(Int(deadline))) * 1e9)
            if pthread_cond_timedwait(condition, mutex, &time) == ETIMEDOUT { return isDone() }
        }
        return true
    }

    /// Wakes every waiter; call after changing the state a waiter checks.
    func broadcast() {
        pthread_mutex_lock(mutex)
        pthread_cond_broadcast(condition)
        pthread_mutex_unlock(mutex)
    }
}
