/// App Check for one Firebase app (project id, app id): gets App Check tokens from its provider
/// and keeps one fresh for the storages that use it (`Storage.use(appCheck:)`), any number of
/// them. A renewal is shared by every request that needs it (`RenewalInFlight`, as Auth's ID
/// token), and requests whose token is fresh never wait for one.
///
/// Its own requests (the debug provider's exchange) run on its transfer thread; custom
/// providers, token listeners and the asynchronous forms' completions on its callback thread.
public final class AppCheck: RequestHost, AppCheckTokenSource, @unchecked Sendable {
    public let projectID: String
    public let appID: String
    /// Sent as `X-Goog-Api-Key` with the exchange, as the Apple SDK does; production needs it.
    public let apiKey: String?
    private let threads: ServiceThreads
    var engine: any TransferEngine { threads.engine }
    var callbackQueue: CallbackQueue { threads.callbackQueue }
    /// The exchange carries no user or App Check token.
    var credentials: AuthTokens { AuthTokens() }

    private struct State {
        var endpoints = AppCheckEndpoints()
        var provider: (any AppCheckProvider)?
        var cached: AppCheckToken?
        /// Counts provider changes, so that a renewal the old provider answers is not kept.
        var generation = 0
        var renewal = RenewalInFlight<AppCheckToken>()
        var autoRefresh = false
        /// Renewals failed in a row, for the auto-refresh's backoff.
        var failures = 0
        /// The auto-refresh's pending timer, numbered: one that fires after it was replaced does nothing.
        var refreshTimer: (id: TimerID, number: Int)?
        var refreshNumber = 0
    }

    private let lock = ConditionLock()
    private var state = State()
    private let listeners: ListenerRegistry<@Sendable (AppCheckToken) -> Void>
    private let work = WorkRegistry(owner: "App Check")

    /// Creates an App Check for the app `appID` (as the Firebase console shows it,
    /// `1:1234:web:abcd`) of `projectID`. Honours `FIREBASE_APP_CHECK_EMULATOR_HOST=host:port`.
    /// - Throws: `invalidArgument` for an empty or malformed id or key, or a malformed
    ///   `FIREBASE_APP_CHECK_EMULATOR_HOST`.
    public convenience init(projectID: String, appID: String, apiKey: String? = nil) throws(StorageError) {
        try self.init(projectID: projectID, appID: appID, apiKey: apiKey, engine: HTTPEngine(name: "fbstorage-appcheck"))
    }

    init(projectID: String, appID: String, apiKey: String?, engine: @autoclosure () throws(StorageError) -> any TransferEngine) throws(StorageError) {
        try Self.checkID(projectID, "project id")
        try Self.checkID(appID, "app id")
        if let apiKey {
            guard !apiKey.isEmpty else { throw .invalidArgument("The API key is empty") }
            try HeaderValue.check(apiKey, field: "The API key")
        }
        self.projectID = projectID
        self.appID = appID
        self.apiKey = apiKey
        state.endpoints.emulator = try Endpoint.emulator(environment: AppCheckEndpoints.emulatorVariable)
        threads = try ServiceThreads(engine: engine(), callbacks: "fbstorage-appcheck-callbacks")
        listeners = ListenerRegistry(lock: lock, callbackQueue: threads.callbackQueue)
    }

    /// Ids go into the exchange's URL path: letters, digits and `:._-` only.
    private static func checkID(_ id: String, _ name: String) throws(StorageError) {
        guard !id.isEmpty else { throw .invalidArgument("The \(name) is empty") }
        guard id.utf8.count <= 256, id.unicodeScalars.allSatisfy({ $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || ":._-".unicodeScalars.contains($0)) }) else {
            throw .invalidArgument("The \(name) may only hold letters, digits and \":._-\" (at most 256)")
        }
    }

    /// Sends the token exchange to an emulator at `http://host:port`.
    public func useEmulator(host: String, port: Int) throws(StorageError) {
        let endpoint = try Endpoint.emulator(host: host, port: port)
        lock.withLock { state.endpoints.emulator = endpoint }
    }

    /// Sets the provider (nil: none; storages then send no App Check token). The token of the
    /// previous provider is dropped; a renewal it is answering is not kept. A minted token
    /// (`MintedAppCheckProvider`) is kept at once, and token listeners hear of it.
    public func setProvider(_ provider: (any AppCheckProvider)?) {
        let minted = (provider as? MintedAppCheckProvider)?.minted
        // The replaced provider is released after unlocking: that may run the caller's code (the
        // C API's destroy callback of a provider's user_data).
        _ = lock.withLock { () -> (any AppCheckProvider)? in
            defer {
                state.provider = provider
                state.cached = minted
                state.generation += 1
                state.failures = 0
                scheduleRefresh()
            }
            return state.provider
        }
        if let minted { notify(minted) }
    }

    // MARK: Token listeners

    /// Adds a listener of the tokens App Check keeps: it runs on the callback thread once for
    /// every renewal whose token is kept and every minted token set (never for a limited-use
    /// token), and once now when a fresh token is kept (as the JS SDK's `onTokenChanged`).
    /// Returns its handle.
    @discardableResult
    public func addTokenListener(_ callback: @escaping @Sendable (AppCheckToken) -> Void) -> Int64 {
        let now = IDToken.now()
        return listeners.add(callback) { [self] in
            guard let cached = state.cached, cached.isFresh(at: now) else { return nil }
            return { $0(cached) }
        }
    }

    /// Removes a token listener. When this returns (off the callback thread) it does not run again.
    /// - Throws: `invalidArgument` for an unknown handle.
    public func removeTokenListener(_ handle: Int64) throws(StorageError) { try listeners.remove(handle) }

    /// Removes every token listener (their owner is going away), waiting as `removeTokenListener` does.
    public func removeAllTokenListeners() { listeners.removeAll() }

    private func notify(_ token: AppCheckToken) { listeners.notify { $0(token) } }

    // MARK: Tokens

    /// The current token, renewed first when it is about to expire or `forcingRefresh`.
    /// - Throws: `appCheckNoProvider`, or the provider's error.
    public func token(forcingRefresh: Bool) throws(StorageError) -> AppCheckToken {
        try runBlocking { done throws(StorageError) in fetch(rejected: nil, force: forcingRefresh, done) }
    }

    public func token(forcingRefresh: Bool, completion: @escaping StorageCompletion<AppCheckToken>) throws(StorageError) {
        try runAsync({ done throws(StorageError) in fetch(rejected: nil, force: forcingRefresh, done) }, completion: completion)
    }

    /// A new limited-use token (for one replay-protected call): asked of the provider each time,
    /// never cached nor sent by storages.
    public func limitedUseToken() throws(StorageError) -> AppCheckToken {
        try runBlocking { done throws(StorageError) in fetchLimitedUse(done) }
    }

    public func limitedUseToken(completion: @escaping StorageCompletion<AppCheckToken>) throws(StorageError) {
        try runAsync({ done throws(StorageError) in fetchLimitedUse(done) }, completion: completion)
    }

    /// The storages' side (`AppCheckTokenSource`): no provider, no token.
    public func appCheckToken(rejected: String?, completion: @escaping @Sendable (Result<String?, StorageError>) -> Void) {
        guard lock.withLock({ state.provider }) != nil else { return completion(.success(nil)) }
        fetch(rejected: rejected, force: false) { result in completion(result.map { $0.token }) }
    }

    static let noProvider = StorageError(code: .appCheckNoProvider, message: "App Check has no provider: set one first")

    private func fetch(rejected: String?, force: Bool, _ done: @escaping StorageCompletion<AppCheckToken>) {
        enum Step { case answer(AppCheckToken), noProvider, wait, renew(any AppCheckProvider, generation: Int) }
        let now = IDToken.now()
        let step = lock.withLock { () -> Step in
            guard let provider = state.provider else { return .noProvider }
            if !force, let cached = state.cached, cached.token != rejected, cached.isFresh(at: now) { return .answer(cached) }
            guard state.renewal.join(done) else { return .wait }
            return .renew(provider, generation: state.generation)
        }
        switch step {
        case .answer(let token): done(.success(token))
        case .noProvider: done(.failure(Self.noProvider))
        case .wait: break
        case .renew(let provider, let generation):
            provider.token(for: self, limitedUse: false) { [self] result in finishRenewal(result, generation: generation) }
        }
    }

    private func finishRenewal(_ result: Result<AppCheckToken, StorageError>, generation: Int) {
        let (waiters, kept) = lock.withLock { () -> (RenewalInFlight<AppCheckToken>.Waiters, AppCheckToken?) in
            var kept: AppCheckToken?
            if generation == state.generation {
                switch result {
                case .success(let token):
                    state.cached = token
                    state.failures = 0
                    kept = token
                case .failure:
                    state.failures += 1
                }
                scheduleRefresh()
            }
            return (state.renewal.end(), kept)
        }
        if let kept { notify(kept) }
        waiters.answer(result)
    }

    // MARK: Auto-refresh

    /// Renews the kept token in the background before requests need it, as the SDKs' token
    /// refreshers do: halfway through each kept token's life, and after a failed renewal again
    /// with backoff (1 s, doubling, at most 5 minutes) until one succeeds. Off by default: a
    /// token is then renewed when a request needs one (see `AppCheckToken.isFresh`), which that
    /// request waits for. A minted token (`MintedAppCheckProvider`) has nothing to be renewed
    /// from and is never refreshed; a first token is always asked for by a request.
    public var isTokenAutoRefreshEnabled: Bool {
        get { lock.withLock { state.autoRefresh } }
        set {
            lock.withLock {
                state.autoRefresh = newValue
                scheduleRefresh()
            }
        }
    }

    /// (Re)sets the auto-refresh's timer for the kept token, or clears it. Under the lock.
    private func scheduleRefresh() {
        if let timer = state.refreshTimer { engine.cancelTimer(timer.id) }
        state.refreshTimer = nil
        guard state.autoRefresh, let provider = state.provider, !(provider is MintedAppCheckProvider) else { return }
        let delay: Double
        if state.failures > 0 {
            delay = min(Double(1 << min(state.failures - 1, 9)), 300)
        } else if let cached = state.cached {
            delay = max(0, (cached.receivedAt + cached.expiresAt) / 2 - IDToken.now())
        } else {
            return
        }
        state.refreshNumber += 1
        let number = state.refreshNumber
        let id = engine.schedule(after: delay) { [weak self] in self?.refreshDue(number) }
        state.refreshTimer = (id, number)
    }

    /// A renewal as a request's, forced: `finishRenewal` keeps its token and schedules the next.
    private func refreshDue(_ number: Int) {
        guard lock.withLock({ state.refreshTimer?.number == number }) else { return }
        fetch(rejected: nil, force: true) { _ in }
    }

    private func fetchLimitedUse(_ done: @escaping StorageCompletion<AppCheckToken>) {
        guard let provider = lock.withLock({ state.provider }) else { return done(.failure(Self.noProvider)) }
        provider.token(for: self, limitedUse: true, completion: done)
    }

    // MARK: The exchange

    /// `POST …/projects/{project}/apps/{app}:{method}` with `{field: value, "limitedUse": …}`:
    /// transport failures, 5xx and 429 are retried; any other error status is final at once.
    /// `field`'s value (a secret) is kept out of the errors.
    func exchange(_ method: String, field: (name: String, value: String), limitedUse: Bool,
                  completion: @escaping StorageCompletion<AppCheckToken>) {
        let call = "token exchange (\(method))"
        let (url, endpoint) = lock.withLock { state.endpoints }.exchange(method, projectID: projectID, appID: appID)
        var body: [UInt8] = []
        JSONValue.writeObject([(field.name, .string(field.value)), ("limitedUse", .bool(limitedUse))], into: &body)
        var headers = [(name: "Content-Type", value: "application/json")]
        if let apiKey { headers.append((name: "X-Goog-Api-Key", value: apiKey)) }
        let request = HTTPRequest(method: "POST", url: url, headers: headers, body: BytesBody(body))
        var settings = StorageSettings()
        settings.endpoint = endpoint
        let hooks = RetryingRequest.Hooks.serviceCall { response in
            AppCheckErrors.exchangeRefused(status: response.status, body: response.body, call: call)
        }
        let secrets = [field.value] + (apiKey.map { [$0] } ?? [])
        do throws(StorageError) {
            try RetryingRequest(
                host: self, subject: .service("App Check \(call)"), settings: settings,
                retryTime: settings.maxOperationRetryTime, options: .init(authenticated: false), hooks: hooks,
                build: { _, _ in request },
                completion: { result in
                    completion(result.mapError { $0.redacting(secrets) }.flatMap { response in
                        let answer = JSONValue.parse(response.body)
                        guard let token = (answer?["token"] ?? answer?["attestationToken"])?.stringValue, !token.isEmpty,
                              let ttl = answer?["ttl"]?.stringValue, let parsed = AppCheckToken(token: token, ttl: ttl) else {
                            return .failure(StorageError(code: .unknown, message: "App Check \(call): the answer holds no token and ttl",
                                                         httpStatus: response.status))
                        }
                        return .success(parsed)
                    })
                }).start()
        } catch {
            completion(.failure(error))
        }
    }

    // MARK: RequestHost

    func register(_ work: any StorageWork) throws(StorageError) { try self.work.register(work) }

    func unregister(_ work: any StorageWork) { self.work.unregister(work) }
}
