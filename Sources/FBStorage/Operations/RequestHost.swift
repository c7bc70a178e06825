/// What a retried request needs of its owner (a storage, an auth): the transfer engine, a
/// registry of running work to end on close, and the credentials its requests carry.
protocol RequestHost: AnyObject, Sendable {
    var engine: any TransferEngine { get }
    /// Where completions of the public asynchronous forms run.
    var callbackQueue: CallbackQueue { get }
    var credentials: AuthTokens { get }
    /// Records running work so closing can end it; fails once closed.
    func register(_ work: any StorageWork) throws(StorageError)
    func unregister(_ work: any StorageWork)
}

extension RequestHost {
    /// Runs an operation and blocks until it completes. Refused on the transfer thread (a token
    /// provider calling a blocking operation), where waiting would deadlock.
    func runBlocking<T: Sendable>(_ start: (@escaping StorageCompletion<T>) throws(StorageError) -> Void) throws(StorageError) -> T {
        guard !engine.isTransferThread else {
            throw StorageError(code: .invalidArgument, message: "Blocking operations cannot run on the transfer thread")
        }
        let done = Completion<Result<T, StorageError>>()
        try start { done.complete($0) }
        return try done.wait().get()
    }

    /// Runs an operation and delivers its result on the callback thread.
    func runAsync<T: Sendable>(_ start: (@escaping StorageCompletion<T>) throws(StorageError) -> Void,
                               completion: @escaping StorageCompletion<T>) throws(StorageError) {
        try start { result in self.callbackQueue.enqueue { completion(result) } }
    }
}
