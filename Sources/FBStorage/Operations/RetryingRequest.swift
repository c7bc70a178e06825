/// The one attempt loop: every request the library sends goes through here (operations, upload
/// starts, chunks and status queries, download streams).
///
/// Transport failures, 408, 429 and 5xx back off and try again until the deadline (honouring
/// `Retry-After`); a 401 refreshes the token once when a provider can, App Check's 401 the App
/// Check token once. Each attempt is built anew
/// by `build`, so a retry may be another request than the first: a status query after a failed
/// chunk, a `Range` request after a cut download. `Hooks` stream bodies and refine the verdicts.
/// Everything after `start()` runs on the transfer thread, `completion` too.
final class RetryingRequest: StorageWork, @unchecked Sendable {
    /// Builds attempt number `attempt` (from 0) with the auth headers (none when unauthenticated).
    /// Throwing ends the request with that error.
    typealias Build = @Sendable (_ attempt: Int, _ auth: [(name: String, value: String)]) throws(StorageError) -> HTTPRequest

    /// How the request treats its attempts.
    struct Options {
        /// Whether to send the storage's auth headers (a resumable session's URL is its own credential).
        var authenticated = true
        /// Streams (chunks, downloads) have no total timeout: a large one on a slow link may take
        /// long, and a stalled one is caught by the stall timeout.
        var streaming = false
        /// Operations register with the storage, which cancels them when it closes; a task's
        /// requests belong to the task, which abandons them.
        var registered = true
        /// The owning task's speed cap, re-read while each attempt runs.
        var speedCap: SpeedCap? = nil

        func with(speedCap: SpeedCap) -> Options {
            var options = self
            options.speedCap = speedCap
            return options
        }
    }

    /// Streaming and classification, all on the transfer thread.
    struct Hooks {
        /// Bytes of the attempt's request body sent so far.
        var onUploadProgress: (@Sendable (Int64) -> Void)?
        /// A 2xx response's status and headers, before its body; an error aborts the request.
        var onResponseHead: (@Sendable (Int, HTTPHeaders) -> StorageError?)?
        /// Takes a 2xx response's body instead of buffering it; an error aborts the request.
        /// Other statuses' bodies are kept (64 KiB at most) for their error.
        var onBodyData: (@Sendable (UnsafeRawBufferPointer) -> StorageError?)?
        /// Refines the standard verdict on an attempt (`AttemptOutcome`).
        var classify: (@Sendable (Result<HTTPResponse, TransportError>, AttemptOutcome) -> AttemptOutcome)?
    }

    private let host: any RequestHost
    private let subject: RequestSubject
    private let settings: StorageSettings
    private let options: Options
    private let hooks: Hooks
    private let build: Build
    private let completion: @Sendable (Result<HTTPResponse, StorageError>) -> Void
    private let retryTime: Double
    private var backoff: Backoff

    // Transfer-thread state.
    private var attempts = 0
    private var transfer: TransferID?
    private var timer: TimerID?
    private var refreshedToken = false
    private var refreshedAppCheckToken = false
    /// The tokens the current attempt sends (the ones a 401 rejects).
    private var sent = AuthTokens.Credentials()
    private var finished = false
    /// The current attempt's status, and an error a hook aborted it with.
    private var status = 0
    private var hookError: StorageError?
    private var errorBody: [UInt8] = []
    /// The credentials the current attempt sends, kept out of its errors.
    private var secrets: [String] = []
    /// Bytes moved that never had before, since the last retry (`noteProgress`).
    private var progressed = false
    /// Asked for the attempt's credentials; not answered yet.
    private var awaitingCredentials = false

    /// - Parameters:
    ///   - retryTime: how long to keep retrying, in seconds.
    ///   - deadline: the absolute deadline (`engine.now()` clock) when it is not now + `retryTime`.
    convenience init(storage: Storage, path: StoragePath, settings: StorageSettings, retryTime: Double, deadline: Double? = nil,
                     options: Options = Options(), hooks: Hooks = Hooks(),
                     build: @escaping Build, completion: @escaping @Sendable (Result<HTTPResponse, StorageError>) -> Void) {
        self.init(host: storage, subject: .object(path), settings: settings, retryTime: retryTime, deadline: deadline,
                  options: options, hooks: hooks, build: build, completion: completion)
    }

    init(host: any RequestHost, subject: RequestSubject, settings: StorageSettings, retryTime: Double, deadline: Double? = nil,
         options: Options = Options(), hooks: Hooks = Hooks(),
         build: @escaping Build, completion: @escaping @Sendable (Result<HTTPResponse, StorageError>) -> Void) {
        self.host = host
        self.subject = subject
        self.settings = settings
        self.retryTime = retryTime
        self.options = options
        self.hooks = hooks
        self.build = build
        self.completion = completion
        backoff = Backoff(deadline: deadline ?? host.engine.now() + retryTime, refusedGrace: settings.loopbackRefusedGrace)
    }

    /// Starts the first attempt: at once on the transfer thread, else posted to it. A registered
    /// request fails at once if the storage is closed.
    func start() throws(StorageError) {
        if case .object(let path) = subject, path.bucket.isEmpty { throw Storage.noBucket }
        if options.registered { try host.register(self) }
        if host.engine.isTransferThread {
            attempt(rejected: .init())
        } else {
            host.engine.perform { self.attempt(rejected: .init()) }
        }
    }

    /// Stops the request without calling `completion` (its owner moved on). Transfer thread.
    func abandon() {
        host.engine.assertOnTransferThread()
        guard !finished else { return }
        finished = true
        stopInFlight()
        if options.registered { host.unregister(self) }
    }

    func cancelForClose() {
        guard !finished else { return }
        stopInFlight()
        finish(.failure(.cancelled(subject)))
    }

    private func stopInFlight() {
        if let transfer { host.engine.cancel(transfer) }
        if let timer { host.engine.cancelTimer(timer) }
        transfer = nil
        timer = nil
    }

    /// Asks for the attempt's credentials, then sends it. A source that answers at once (a
    /// fresh token) costs nothing more; one that answers later resumes here on the transfer
    /// thread, and one that has not answered by the deadline (a caller's token provider that never
    /// calls back) ends the request then: it never waits for good.
    private func attempt(rejected: AuthTokens.Rejected) {
        host.engine.assertOnTransferThread()
        guard !finished else { return }
        let engine = host.engine
        awaitingCredentials = true
        host.credentials.credentials(for: settings.endpoint, rejected: rejected, user: options.authenticated) { [self] result in
            if engine.isTransferThread { send(result) } else { engine.perform { self.send(result) } }
        }
        if awaitingCredentials && !finished {
            timer = engine.schedule(after: max(0, backoff.deadline - engine.now())) { [self] in
                timer = nil
                guard awaitingCredentials, !finished else { return }
                let cause = StorageError(code: .unauthenticated, message: "The request's credentials (an auth or App Check token) did not arrive: its provider has not answered")
                finish(.failure(.retryLimit(after: cause, seconds: retryTime, backoff: backoff)))
            }
        }
    }

    private func send(_ credentials: Result<AuthTokens.Credentials, StorageError>) {
        guard !finished else { return }
        awaitingCredentials = false
        if let timer { host.engine.cancelTimer(timer) }
        timer = nil
        var request: HTTPRequest
        do throws(StorageError) {
            sent = try credentials.get()
            secrets = AuthTokens.secrets(in: sent.headers)
            request = try build(attempts, sent.headers)
        } catch {
            return finish(.failure(error))
        }
        attempts += 1
        request.applyLimits(settings, remaining: backoff.deadline - host.engine.now())
        if let cap = options.speedCap {
            request.sendCaps.append(cap)
            request.receiveCaps.append(cap)
        }
        if options.streaming {
            request.timeout = nil
            request.stallTimeout = min(request.stallTimeout, max(retryTime, 1))
        }
        status = 0
        hookError = nil
        errorBody = []
        transfer = host.engine.start(request, callbacks())
    }

    private func callbacks() -> TransferCallbacks {
        var callbacks = TransferCallbacks(onComplete: { [self] result in handle(result) })
        if let progress = hooks.onUploadProgress {
            callbacks.onUploadProgress = { [self] sent in if !finished { progress(sent) } }
        }
        if hooks.onResponseHead != nil || hooks.onBodyData != nil {
            callbacks.onResponseHead = { [self] status, headers in responseHead(status, headers) }
        }
        if hooks.onBodyData != nil {
            callbacks.onBodyData = { [self] bytes in bodyData(bytes) }
        }
        return callbacks
    }

    private func responseHead(_ status: Int, _ headers: HTTPHeaders) -> Bool {
        self.status = status
        guard (200..<300).contains(status), let check = hooks.onResponseHead else { return true }
        hookError = check(status, headers)
        return hookError == nil
    }

    private func bodyData(_ bytes: UnsafeRawBufferPointer) -> Bool {
        // Abandoned from a hook (a sink that paused its task): the rest of the body is not taken.
        guard !finished else { return false }
        guard (200..<300).contains(status), let take = hooks.onBodyData else {
            errorBody.append(contentsOf: bytes.prefix(max(0, 65536 - errorBody.count)))
            return true
        }
        hookError = take(bytes)
        return hookError == nil
    }

    private func handle(_ result: Result<HTTPResponse, TransportError>) {
        guard !finished else { return }
        transfer = nil
        if let hookError { return finish(.failure(hookError)) }
        // Read in a scope of its own: a source held past it would be released after `finish`, on
        // this thread, so a caller replacing its provider once the task ended would see the C
        // API's destroy callback run late.
        let (canRefreshToken, canRefreshAppCheck) = { [host] in
            let credentials = host.credentials
            return (credentials.canRefresh, credentials.canRefreshAppCheck)
        }()
        let mayRefresh = options.authenticated && !refreshedToken && canRefreshToken
        // A fresh App Check token only helps a request that sent one: none sent, none to be had.
        let appCheck = AttemptOutcome.AppCheck(sent: sent.appCheckToken != nil,
                                               mayRefresh: sent.appCheckToken != nil && !refreshedAppCheckToken && canRefreshAppCheck)
        var outcome = AttemptOutcome(result, subject: subject, settings: settings, mayRefreshToken: mayRefresh, appCheck: appCheck,
                                     errorBody: hooks.onBodyData != nil ? errorBody : nil)
        if let classify = hooks.classify { outcome = classify(result, outcome) }
        switch outcome.redacting(secrets) {
        case .success(let response): finish(.success(response))
        case .refreshToken:
            refreshedToken = true
            attempt(rejected: .init(token: sent.token ?? ""))
        case .refreshAppCheckToken:
            refreshedAppCheckToken = true
            attempt(rejected: .init(appCheckToken: sent.appCheckToken ?? ""))
        case .retry(let cause, let retryAfter, let refused): retry(after: cause, retryAfter: retryAfter, refused: refused)
        case .fail(let error): finish(.failure(error))
        }
    }

    /// The owner saw bytes move that never had before (a download's new bytes, an upload's bytes
    /// past all it sent so far): the retry deadline is a time without progress, so it counts again
    /// from the attempt that moved them. Transfer thread only.
    func noteProgress() { progressed = true }

    private func retry(after cause: StorageError, retryAfter: Double?, refused: Bool) {
        if progressed {
            progressed = false
            let renewed = host.engine.now() + retryTime
            if renewed > backoff.deadline { backoff = Backoff(deadline: renewed, refusedGrace: settings.loopbackRefusedGrace) }
        }
        guard let delay = backoff.nextDelay(now: host.engine.now(), retryAfter: retryAfter, refused: refused) else {
            return finish(.failure(.retryLimit(after: cause, seconds: retryTime, backoff: backoff)))
        }
        RetryLog.retrying(subject, in: delay, after: cause)
        timer = host.engine.schedule(after: delay) { [self] in
            timer = nil
            attempt(rejected: .init())
        }
    }

    private func finish(_ result: Result<HTTPResponse, StorageError>) {
        finished = true
        if case .failure(let error) = result, error.code != .cancelled { RetryLog.gaveUp(subject, error) }
        if options.registered { host.unregister(self) }
        completion(result)
    }
}

extension HTTPRequest {
    /// Applies the storage's connection settings and caps the request at the time left.
    mutating func applyLimits(_ settings: StorageSettings, remaining: Double) {
        connectTimeout = min(settings.connectTimeout, max(remaining, 1))
        timeout = max(remaining, 1)
        caFile = settings.caFile
        proxy = settings.proxy
        sendCaps = [settings.uploadSpeedCap]
        receiveCaps = [settings.downloadSpeedCap]
    }
}
