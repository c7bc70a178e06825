/// "One renewal in flight, the others wait", for every credential that refreshes: a user's ID
/// token (`Auth`), a service account's access token (`ServiceAccountCredentials`), an App Check
/// token. The first caller that finds no fresh value starts the renewal; callers that come while
/// it runs wait for it; all of them hear its one answer, success or error.
///
/// A value kept in its owner's locked state, so that "is the value fresh?" and "join the renewal"
/// are one step under the owner's lock, and the owner stores the renewed value in the same step
/// that ends the renewal. The waiters are answered after the lock is released.
struct RenewalInFlight<Value: Sendable>: Sendable {
    typealias Waiter = @Sendable (Result<Value, StorageError>) -> Void

    private var waiters: [Waiter] = []

    /// True between the `join` that started a renewal and its `end`.
    var isRunning: Bool { !waiters.isEmpty }

    /// Adds `waiter` to the renewal. Returns true when none was running: the caller must start
    /// it, and call `end` when it finishes, however it finishes.
    mutating func join(_ waiter: @escaping Waiter) -> Bool {
        waiters.append(waiter)
        return waiters.count == 1
    }

    /// Ends the renewal; returns its waiters, to be answered with `answer` once the owner's lock
    /// is released. The next `join` starts a new renewal.
    mutating func end() -> Waiters {
        defer { waiters = [] }
        return Waiters(list: waiters)
    }

    /// The callers that waited for one renewal.
    struct Waiters: Sendable {
        fileprivate let list: [Waiter]

        var count: Int { list.count }

        /// Gives every waiter the renewal's result, in the order they joined.
        func answer(_ result: Result<Value, StorageError>) {
            for waiter in list { waiter(result) }
        }
    }
}
