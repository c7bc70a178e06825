#if canImport(Glibc)
import Glibc
#endif

/// Work a storage must stop when it closes: running tasks and operations.
protocol StorageWork: AnyObject, Sendable {
    /// Ends the work with `StorageError.cancelled`. Called on the transfer thread.
    func cancelForClose()
    /// Ends the work with `StorageError.cancelled`, keeping what lets it resume later (an
    /// upload's session stays open on the server). Called on the transfer thread.
    func stopForClose()
}

extension StorageWork {
    func stopForClose() { cancelForClose() }
}

/// How `Storage.close` ends the work still running.
public enum CloseMode: Sendable, Equatable {
    /// Cancel it all; uploads also cancel their sessions on the server.
    case cancel
    /// Stop it, keeping each upload's resumable session (`StorageUploadTask.uploadSession` is
    /// final and its FAILURE event delivered, with `.cancelled`, before `close` returns).
    case keepSessions
    /// Let running tasks finish for up to this many seconds, then stop the rest as `keepSessions`.
    case finish(within: Double)
}

/// One bucket, its settings and credentials, and the two threads that serve it: the transfer
/// thread (libcurl) and the callback thread (user callbacks).
public final class Storage: RequestHost, @unchecked Sendable {
    /// The bucket name, without `gs://`.
    public let bucket: String
    private let threads: ServiceThreads
    var engine: any TransferEngine { threads.engine }
    var callbackQueue: CallbackQueue { threads.callbackQueue }

    private let lock = ConditionLock()
    private var currentSettings = StorageSettings()
    private var currentAuth = AuthTokens()
    private let work = WorkRegistry(owner: "storage")
    /// Uploads' cancel commands, which `close()` lets finish (briefly) before stopping the threads.
    let farewells = FarewellRequests()

    /// Creates a storage for `bucket` ("b" or "gs://b"). Honours
    /// `FIREBASE_STORAGE_EMULATOR_HOST=host:port` as the Admin SDKs do.
    public convenience init(bucket: String) throws(StorageError) {
        try self.init(bucket: bucket, engine: HTTPEngine(name: "fbstorage-transfer"))
    }

    /// A storage without a bucket, as the Apple SDK makes one for `Storage.storage(url: "")` or an
    /// empty `storageBucket`: its references work (their bucket is ""), and every request fails at
    /// once with `noBucket`, sending nothing.
    public static func withoutBucket() throws(StorageError) -> Storage {
        try Storage(bucket: nil, engine: HTTPEngine(name: "fbstorage-transfer"))
    }

    /// The error of every request of a storage without a bucket.
    static let noBucket = StorageError(code: .bucketNotFound,
                                       message: "No bucket: the storage was made without one (an empty storageBucket, or a storage for the URL \"\")")

    /// A storage whose requests go through `engine` (tests pass a fake one); nil: no bucket.
    init(bucket: String?, engine: @autoclosure () throws(StorageError) -> any TransferEngine) throws(StorageError) {
        if let bucket {
            self.bucket = try StoragePath.parseBucket(bucket)
        } else {
            self.bucket = ""
        }
        if let endpoint = try Endpoint.emulator(environment: "FIREBASE_STORAGE_EMULATOR_HOST") {
            currentSettings.endpoint = endpoint
            currentSettings.endpointFromEnvironment = true
        }
        threads = try ServiceThreads(engine: engine(), callbacks: "fbstorage-callbacks")
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

    /// Sends every request to the server at `url`: `http[s]://host[:port]`.
    /// - Throws: `invalidArgument` as `Endpoint.custom(url:)`.
    public func useEndpoint(url: String) throws(StorageError) {
        let endpoint = try Endpoint.custom(url: url)
        lock.withLock { currentSettings.endpoint = endpoint }
    }

    /// Sends `token` with every request (nil: none), as `scheme` says: a user's ID token
    /// (`.firebase`) or an OAuth2 access token (`.bearer`). Replaces any other token source.
    /// - Throws: `invalidArgument` when the token holds a control character.
    public func setAuthToken(_ token: String?, scheme: AuthScheme = .firebase) throws(StorageError) {
        if let token { try HeaderValue.check(token, field: "The auth token") }
        use(tokenSource: token.map { FixedTokenSource($0, scheme: scheme) })
    }

    /// Asks `provider` on the transfer thread before each request (it must be quick). Replaces
    /// any other token source; nil removes it.
    public func setAuthTokenProvider(scheme: AuthScheme = .firebase, _ provider: (@Sendable (Bool) -> String?)?) {
        use(tokenSource: provider.map { TokenProviderSource($0, scheme: scheme) })
    }

    /// As `setAuthTokenProvider(_:)`, for a provider whose answer may be unusable: its error
    /// fails the request at once.
    public func setAuthTokenProvider(checked provider: (@Sendable (Bool) -> Result<String?, StorageError>)?) {
        use(tokenSource: provider.map { TokenProviderSource(checked: $0) })
    }

    /// Asks `provider` on the callback thread; it answers through the `TokenRequest`, later and
    /// from any thread. Replaces any other token source; nil removes it.
    public func setAuthTokenProvider(scheme: AuthScheme = .firebase,
                                     async provider: (@Sendable (_ forceRefresh: Bool, _ request: TokenRequest) -> Void)?) {
        use(tokenSource: provider.map { AsyncTokenProviderSource($0, callbackQueue: callbackQueue, scheme: scheme) })
    }

    /// Where every request, of tasks already running too, gets its ID token from (an `Auth`,
    /// or any source); nil: none.
    public func use(tokenSource: (any AuthTokenSource)?) {
        // The replaced source is released after unlocking: that may run the caller's code (the C
        // API's destroy callback of a provider's user_data), which may call back into the storage.
        _ = lock.withLock { () -> (any AuthTokenSource)? in
            let replaced = currentAuth.source
            currentAuth.source = tokenSource
            return replaced
        }
    }

    /// The token source in use (an `Auth` the storage keeps alive), if any.
    public var tokenSource: (any AuthTokenSource)? { lock.withLock { currentAuth.source } }

    /// Sends `token` as `X-Firebase-AppCheck` with every request (nil: none). Replaces an App Check.
    /// - Throws: `invalidArgument` when the token holds a control character.
    public func setAppCheckToken(_ token: String?) throws(StorageError) {
        if let token { try HeaderValue.check(token, field: "The App Check token") }
        use(appCheck: nil, token: token)
    }

    /// Where every request, of tasks already running too, gets its App Check token from (an
    /// `AppCheck`, kept alive by the storage); nil: none. Replaces a fixed App Check token.
    public func use(appCheck: (any AppCheckTokenSource)?) {
        use(appCheck: appCheck, token: nil)
    }

    private func use(appCheck: (any AppCheckTokenSource)?, token: String?) {
        // Released after unlocking, as in `use(tokenSource:)`.
        _ = lock.withLock { () -> (any AppCheckTokenSource)? in
            defer {
                currentAuth.appCheck = appCheck
                currentAuth.appCheckToken = token
            }
            return currentAuth.appCheck
        }
    }

    /// The App Check in use, if any.
    public var appCheck: (any AppCheckTokenSource)? { lock.withLock { currentAuth.appCheck } }

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

    public var isClosed: Bool { work.isClosed }

    /// Records running work so `close()` can cancel it; fails once the storage is closed.
    func register(_ work: any StorageWork) throws(StorageError) { try self.work.register(work) }

    func unregister(_ work: any StorageWork) { self.work.unregister(work) }

    /// Ends running tasks and operations as `mode` says (their callbacks run with `.cancelled`),
    /// gives uploads' cancel commands in flight up to `FarewellRequests.closeGrace` to reach the
    /// server, runs every pending callback, and stops both threads. Idempotent. From a callback of this
    /// storage it returns at once (without waiting for tasks); the callback thread ends after
    /// that callback.
    public func close(_ mode: CloseMode = .cancel) {
        guard let work = work.close() else { return }
        // On this storage's own threads a wait would never end: what it waits for runs there.
        let mayWait = !engine.isTransferThread && !callbackQueue.isCurrent
        if case .finish(let seconds) = mode, mayWait {
            let deadline = MonotonicClock.seconds() + max(seconds, 0)
            for case let task as StorageTask in work {
                _ = try? task.wait(timeout: max(deadline - MonotonicClock.seconds(), 0))
            }
        }
        let keepSessions = mode != .cancel
        let endAll: @Sendable () -> Void = {
            for item in work { if keepSessions { item.stopForClose() } else { item.cancelForClose() } }
        }
        if engine.isTransferThread {
            endAll()
        } else {
            let ended = Completion<Void>()
            engine.perform {
                endAll()
                ended.complete(())
            }
            ended.wait()
        }
        if mayWait { farewells.waitForClose() }
        threads.shutdown()
    }
}
