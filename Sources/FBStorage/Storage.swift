#if canImport(Glibc)
import Glibc
#endif

/// Work a storage must stop when it closes: running tasks and operations.
protocol StorageWork: AnyObject, Sendable {
    /// Ends the work with `StorageError.cancelled`. Called on the transfer thread.
    func cancelForClose()
}

/// One bucket, its settings and credentials, and the two threads that serve it: the transfer
/// thread (libcurl) and the callback thread (user callbacks).
public final class Storage: RequestHost, @unchecked Sendable {
    /// The bucket name, without `gs://`.
    public let bucket: String
    let engine: any TransferEngine
    let callbackQueue: CallbackQueue

    private let lock = ConditionLock()
    private var currentSettings = StorageSettings()
    private var currentAuth = AuthTokens()
    private var closed = false
    private var activeWork: [ObjectIdentifier: any StorageWork] = [:]

    /// Creates a storage for `bucket` ("b" or "gs://b"). Honours
    /// `FIREBASE_STORAGE_EMULATOR_HOST=host:port` as the Admin SDKs do.
    public convenience init(bucket: String) throws(StorageError) {
        try self.init(bucket: bucket, engine: HTTPEngine(name: "fbstorage-transfer"))
    }

    /// A storage whose requests go through `engine` (tests pass a fake one).
    init(bucket: String, engine: @autoclosure () throws(StorageError) -> any TransferEngine) throws(StorageError) {
        self.bucket = try StoragePath.parseBucket(bucket)
        if let variable = getenv("FIREBASE_STORAGE_EMULATOR_HOST") {
            let value = String(cString: variable)
            guard let endpoint = Endpoint.emulator(hostPort: value) else {
                throw StorageError(code: .invalidArgument,
                                   message: "FIREBASE_STORAGE_EMULATOR_HOST must be host:port, not '\(value)'")
            }
            currentSettings.endpoint = endpoint
            currentSettings.endpointFromEnvironment = true
        }
        self.engine = try engine()
        do {
            callbackQueue = try CallbackQueue(name: "fbstorage-callbacks")
        } catch {
            self.engine.shutdown()
            throw error
        }
    }

    deinit {
        engine.shutdown()
        callbackQueue.shutdown()
    }

    // MARK: Settings

    /// A copy of the current settings.
    public var settings: StorageSettings { lock.withLock { currentSettings } }

    var credentials: AuthTokens { lock.withLock { currentAuth } }

    /// Changes the settings used by operations started afterwards.
    public func updateSettings(_ change: (inout StorageSettings) throws(StorageError) -> Void) throws(StorageError) {
        var settings = self.settings
        try change(&settings)
        lock.withLock { currentSettings = settings }
    }

    /// Sends every request to an emulator at `http://host:port`.
    /// - Throws: `invalidArgument` as `Endpoint.emulator(host:port:)`: a host that would not stay
    ///   the URL's host (whitespace, `/`, `?`, `#`, `@`), or a port outside 1...65535.
    public func useEmulator(host: String, port: Int) throws(StorageError) {
        let endpoint = try Endpoint.emulator(host: host, port: port)
        lock.withLock { currentSettings.endpoint = endpoint }
    }

    /// Sends `token` with every request (nil: none). Replaces any other token source.
    /// - Throws: `invalidArgument` when the token holds a control character.
    public func setAuthToken(_ token: String?) throws(StorageError) {
        if let token { try HeaderValue.check(token, field: "The auth token") }
        use(tokenSource: token.map(FixedTokenSource.init))
    }

    /// Asks `provider` on the transfer thread before each request (it must be quick). Replaces
    /// any other token source; nil removes it.
    public func setAuthTokenProvider(_ provider: (@Sendable (Bool) -> String?)?) {
        use(tokenSource: provider.map(TokenProviderSource.init))
    }

    /// Asks `provider` on the callback thread; it answers through the `TokenRequest`, later and
    /// from any thread. Replaces any other token source; nil removes it.
    public func setAuthTokenProvider(async provider: (@Sendable (_ forceRefresh: Bool, _ request: TokenRequest) -> Void)?) {
        use(tokenSource: provider.map { AsyncTokenProviderSource($0, callbackQueue: callbackQueue) })
    }

    /// Where every request, of tasks already running too, gets its ID token from (an `Auth`,
    /// or any source); nil: none.
    public func use(tokenSource: (any AuthTokenSource)?) {
        lock.withLock { currentAuth.source = tokenSource }
    }

    /// The token source in use (an `Auth` the storage keeps alive), if any.
    public var tokenSource: (any AuthTokenSource)? { lock.withLock { currentAuth.source } }

    /// - Throws: `invalidArgument` when the token holds a control character.
    public func setAppCheckToken(_ token: String?) throws(StorageError) {
        if let token { try HeaderValue.check(token, field: "The App Check token") }
        lock.withLock { currentAuth.appCheckToken = token }
    }

    // MARK: References

    /// A reference to `path` (nil or "" = the root).
    public func reference(_ path: String? = nil) throws(StorageError) -> StorageReference {
        let root = try StoragePath(bucket: bucket, object: "")
        return StorageReference(storage: self, path: try root.child(path ?? ""))
    }

    /// A reference from a `gs://` or `http(s)://…/v0/b/<bucket>/o/<path>` URL of this bucket. A
    /// download URL's `token=` is kept: the reference's downloads send it instead of auth (the
    /// URL's host is not: requests go to this storage's endpoint, production or emulator).
    public func reference(forURL url: String) throws(StorageError) -> StorageReference {
        let path = try StoragePath.parse(url: url)
        guard path.bucket == bucket else {
            throw StorageError(code: .bucketMismatch,
                               message: "The URL's bucket '\(path.bucket)' is not this storage's bucket '\(bucket)'")
        }
        let token = try StoragePath.downloadToken(inURL: url)
        return StorageReference(storage: self, path: path, downloadToken: token)
    }

    // MARK: Lifetime

    public var isClosed: Bool { lock.withLock { closed } }

    /// Records running work so `close()` can cancel it; fails once the storage is closed.
    func register(_ work: any StorageWork) throws(StorageError) {
        let accepted = lock.withLock { () -> Bool in
            guard !closed else { return false }
            activeWork[ObjectIdentifier(work)] = work
            return true
        }
        guard accepted else { throw StorageError(code: .invalidArgument, message: "The storage is closed") }
    }

    func unregister(_ work: any StorageWork) {
        _ = lock.withLock { activeWork.removeValue(forKey: ObjectIdentifier(work)) }
    }

    /// Cancels running tasks and operations (their callbacks run with `.cancelled`), runs every
    /// pending callback, and stops both threads. Idempotent. From a callback of this storage it
    /// returns at once; the callback thread ends after that callback.
    public func close() {
        let work = lock.withLock { () -> [any StorageWork]? in
            guard !closed else { return nil }
            closed = true
            return Array(activeWork.values)
        }
        guard let work else { return }
        if engine.isTransferThread {
            for item in work { item.cancelForClose() }
        } else {
            let cancelled = Completion<Void>()
            engine.perform {
                for item in work { item.cancelForClose() }
                cancelled.complete(())
            }
            cancelled.wait()
        }
        engine.shutdown()
        callbackQueue.shutdown()
    }
}
