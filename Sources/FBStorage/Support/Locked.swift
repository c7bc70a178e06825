#if canImport(Glibc)
import Glibc
#endif

/// A value shared between threads behind a pthread mutex.
///
/// Used instead of `Synchronization.Mutex`: on Linux a contended Mutex is handed over inside
/// the kernel (priority-inheritance futex), where ThreadSanitizer cannot see it, so
/// `make sanitize-thread` reported every access under a Mutex as a race. ThreadSanitizer
/// intercepts pthread mutexes.
package final class Locked<Value>: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private var value: Value

    package init(_ value: Value) {
        self.value = value
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    package func withLock<T, E: Error>(_ body: (inout Value) throws(E) -> T) throws(E) -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
