/// The running work of a storage or an auth, so that closing can end it; refuses new work
/// once closed.
final class WorkRegistry: @unchecked Sendable {
    private let lock = ConditionLock()
    private var closed = false
    private var active: [ObjectIdentifier: any StorageWork] = [:]
    /// Names the owner in the error of work refused after closing ("storage", "auth").
    private let owner: String

    init(owner: String) { self.owner = owner }

    var isClosed: Bool { lock.withLock { closed } }

    func register(_ work: any StorageWork) throws(StorageError) {
        let accepted = lock.withLock { () -> Bool in
            guard !closed else { return false }
            active[ObjectIdentifier(work)] = work
            return true
        }
        guard accepted else { throw StorageError(code: .invalidArgument, message: "The \(owner) is closed") }
    }

    func unregister(_ work: any StorageWork) {
        _ = lock.withLock { active.removeValue(forKey: ObjectIdentifier(work)) }
    }

    /// Closes the registry: the work running now, or nil when it was already closed.
    func close() -> [any StorageWork]? {
        lock.withLock { () -> [any StorageWork]? in
            guard !closed else { return nil }
            closed = true
            return Array(active.values)
        }
    }
}
