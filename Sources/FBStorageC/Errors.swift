import FBStorage
#if canImport(Glibc)
import Glibc
#endif

/// The calling thread's last failure, as C strings for `fbs_last_error_*`.
final class ThreadError {
    var message: UnsafeMutablePointer<CChar>?
    var serverResponse: UnsafeMutablePointer<CChar>?
    var httpStatus: Int32 = 0

    func set(_ error: StorageError) {
        free(message)
        free(serverResponse)
        message = ownedCString(error.message)
        serverResponse = error.serverResponse.flatMap(ownedCString)
        httpStatus = Int32(clamping: error.httpStatus ?? 0)
    }

    deinit {
        free(message)
        free(serverResponse)
    }
}

/// Converts Swift errors to C status codes and keeps the last one per thread.
enum Errors {
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key) { pointer in
            if let pointer { Unmanaged<ThreadError>.fromOpaque(pointer).release() }
        }
        return key
    }()

    static var current: ThreadError {
        if let pointer = pthread_getspecific(key) {
            return Unmanaged<ThreadError>.fromOpaque(pointer).takeUnretainedValue()
        }
        let state = ThreadError()
        pthread_setspecific(key, Unmanaged.passRetained(state).toOpaque())
        return state
    }

    static func record(_ error: StorageError) {
        current.set(error)
    }

    /// Runs an export that returns a status: FBS_OK, or the error's code with the error recorded.
    static func status(_ body: () throws(StorageError) -> Void) -> Int32 {
        do {
            try body()
            return 0
        } catch {
            record(error)
            return error.code.rawValue
        }
    }

    /// Runs an export that returns a value, or `fallback` with the error recorded.
    static func returning<T>(_ fallback: T, _ body: () throws(StorageError) -> T) -> T {
        do {
            return try body()
        } catch {
            record(error)
            return fallback
        }
    }
}
