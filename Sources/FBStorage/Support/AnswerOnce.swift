/// A pending answer a caller gives once, from any thread: the provider requests' core (Auth's
/// `TokenRequest`, App Check's `AppCheckTokenRequest`). It keeps what the caller needs until the
/// answer (a C `_full` form's user_data), and releases it after, with no lock held.
final class AnswerOnce<Value>: @unchecked Sendable {
    private let lock = ConditionLock()
    private var completion: (@Sendable (Result<Value, StorageError>) -> Void)?
    private var held: [AnyObject] = []
    private let what: String

    /// `what` names the request in the error of a second answer ("This token request").
    init(_ what: String, _ completion: @escaping @Sendable (Result<Value, StorageError>) -> Void) {
        self.what = what
        self.completion = completion
    }

    /// Keeps `object` alive until the answer (an answered request keeps nothing).
    func holdUntilAnswered(_ object: AnyObject) {
        lock.withLock { if completion != nil { held.append(object) } }
    }

    /// - Throws: `invalidArgument` when already answered.
    func answer(_ result: Result<Value, StorageError>) throws(StorageError) {
        let taken = lock.withLock { () -> (completion: (@Sendable (Result<Value, StorageError>) -> Void)?, held: [AnyObject]) in
            defer { completion = nil; held = [] }
            return (completion, held)
        }
        guard let completion = taken.completion else {
            throw StorageError(code: .invalidArgument, message: "\(what) was already answered")
        }
        completion(result)
        // `taken.held` is released here, after the answer and with no lock held.
    }
}
