/// One logical request, retried until its deadline: transport failures, 408, 429 and 5xx back off
/// and try again (honouring `Retry-After`); a 401 refreshes the token once when a provider can.
/// Everything after `start()` runs on the transfer thread; `completion` runs there too.
final class RetryingRequest: StorageWork, @unchecked Sendable {
    typealias Build = @Sendable (_ authHeaders: [(name: String, value: String)]) -> HTTPRequest
    /// Looks at a response's status and headers before its body; an error aborts the request.
    typealias HeadCheck = @Sendable (_ status: Int, _ headers: HTTPHeaders) -> StorageError?

    private let storage: Storage
    private let path: StoragePath
    private let settings: StorageSettings
    private let authenticated: Bool
    private let maxBody: Int
    private let bodyLimitError: StorageError?
    private let headCheck: HeadCheck?
    private let build: Build
    private let completion: @Sendable (Result<HTTPResponse, StorageError>) -> Void
    private let retryTime: Double
    private var backoff: Backoff

    // Transfer-thread state.
    private var transfer: TransferID?
    private var timer: TimerID?
    private var refreshedToken = false
    private var finished = false
    private var headError: StorageError?
    /// The credentials the current attempt sends.
    private var secrets: [String] = []

    /// - Parameters:
    ///   - retryTime: how long to keep retrying, in seconds.
    ///   - authenticated: whether to send the storage's auth headers.
    ///   - maxBody: the largest response body to buffer; `bodyLimitError` reports a larger one.
    init(storage: Storage, path: StoragePath, settings: StorageSettings, retryTime: Double,
         authenticated: Bool = true, maxBody: Int = 64 << 20, bodyLimitError: StorageError? = nil,
         headCheck: HeadCheck? = nil,
         build: @escaping Build, completion: @escaping @Sendable (Result<HTTPResponse, StorageError>) -> Void) {
        self.storage = storage
        self.path = path
        self.settings = settings
        self.retryTime = retryTime
        self.authenticated = authenticated
        self.maxBody = maxBody
        self.bodyLimitError = bodyLimitError
        self.headCheck = headCheck
        self.build = build
        self.completion = completion
        backoff = Backoff(deadline: Backoff.monotonicNow() + retryTime)
    }

    /// Starts the request; fails at once if the storage is closed.
    func start() throws(StorageError) {
        try storage.register(self)
        storage.engine.perform { self.attempt(forceRefresh: false) }
    }

    /// Ends the request with `.cancelled` unless it already ended. Any thread.
    func cancel() {
        storage.engine.perform { self.cancelForClose() }
    }

    func cancelForClose() {
        guard !finished else { return }
        if let transfer { storage.engine.cancel(transfer) }
        if let timer { storage.engine.cancelTimer(timer) }
        finish(.failure(.cancelled(path: path)))
    }

    private func attempt(forceRefresh: Bool) {
        guard !finished else { return }
        let headers: [(name: String, value: String)]
        do throws(StorageError) {
            headers = authenticated ? try storage.auth.headers(for: settings.endpoint, forceRefresh: forceRefresh) : []
        } catch {
            return finish(.failure(error))
        }
        secrets = AuthTokens.secrets(in: headers)
        var request = build(headers)
        request.applyLimits(settings, remaining: backoff.deadline - Backoff.monotonicNow())
        headError = nil
        var onResponseHead: (@Sendable (Int, HTTPHeaders) -> Bool)?
        if let headCheck {
            onResponseHead = { [self] status, headers in
                guard let error = headCheck(status, headers) else { return true }
                headError = error
                return false
            }
        }
        let callbacks = TransferCallbacks(
            onResponseHead: onResponseHead,
            maxBufferedBody: maxBody,
            onComplete: { [self] result in handle(result) })
        transfer = storage.engine.start(request, callbacks)
    }

    private func handle(_ result: Result<HTTPResponse, TransportError>) {
        guard !finished else { return }
        transfer = nil
        if let headError { return finish(.failure(headError)) }
        if case .failure(.bodyTooLarge) = result, let bodyLimitError { return finish(.failure(bodyLimitError)) }
        let mayRefresh = authenticated && !refreshedToken && storage.auth.canRefresh
        switch AttemptOutcome(result, path: path, settings: settings, mayRefreshToken: mayRefresh).redacting(secrets) {
        case .success(let response): finish(.success(response))
        case .refreshToken:
            refreshedToken = true
            attempt(forceRefresh: true)
        case .retry(let cause, let retryAfter, let refused): retry(after: cause, retryAfter: retryAfter, refused: refused)
        case .fail(let error): finish(.failure(error))
        }
    }

    private func retry(after cause: StorageError, retryAfter: Double?, refused: Bool) {
        guard let delay = backoff.nextDelay(now: Backoff.monotonicNow(), retryAfter: retryAfter, refused: refused) else {
            finish(.failure(.retryLimit(after: cause, seconds: retryTime, backoff: backoff)))
            return
        }
        RetryLog.retrying(path, in: delay, after: cause)
        timer = storage.engine.schedule(after: delay) { [self] in
            timer = nil
            attempt(forceRefresh: false)
        }
    }

    private func finish(_ result: Result<HTTPResponse, StorageError>) {
        finished = true
        if case .failure(let error) = result, error.code != .cancelled { RetryLog.gaveUp(path, error) }
        storage.unregister(self)
        completion(result)
    }
}

extension HTTPRequest {
    /// Applies the storage's connection settings and caps the request at the time left.
    mutating func applyLimits(_ settings: StorageSettings, remaining: Double) {
        connectTimeout = min(settings.connectTimeout, max(remaining, 1))
        timeout = max(remaining, 1)
        caFile = settings.caFile
    }
}

extension TransportError: CustomStringConvertible {
    public var description: String {
        switch self {
        case .cancelled: return "The request was cancelled"
        case .aborted: return "The request was aborted"
        case .bodyTooLarge(let limit): return "The server's response was larger than \(limit) bytes"
        case .failed(_, let message): return "Network error: \(message)"
        }
    }

    /// The error to report at once, or nil when the failure is worth retrying.
    func storageError(path: StoragePath) -> StorageError? {
        switch self {
        case .cancelled: return .cancelled(path: path)
        case .aborted, .bodyTooLarge: return StorageError(code: .unknown, message: description)
        case .failed(let code, _):
            return Self.permanentCurlCodes.contains(code) ? StorageError(code: .unknown, message: description) : nil
        }
    }

    /// CURLE_COULDNT_CONNECT: on a loopback address, the port refused the connection.
    var isConnectionRefused: Bool {
        if case .failed(let code, _) = self { return code == 7 }
        return false
    }

    /// libcurl failures a retry cannot fix: bad URLs and TLS verification (CURLE_* values).
    private static let permanentCurlCodes: Set<Int32> = [1, 3, 4, 35, 51, 53, 54, 58, 59, 60, 64, 66, 77, 80, 82, 83, 90, 91]
}

extension StorageError {
    static func cancelled(path: StoragePath) -> StorageError {
        StorageError(code: .cancelled, message: "The operation on \(path.gsURL) was cancelled")
    }

    /// The deadline passed on retryable failures (or `backoff` found nothing listening on a
    /// loopback endpoint); a spent 429 is a quota error.
    static func retryLimit(after cause: StorageError, seconds: Double, backoff: Backoff) -> StorageError {
        var error = cause
        error.code = cause.httpStatus == 429 ? .quotaExceeded : .retryLimitExceeded
        error.message = backoff.nothingListening
            ? "Gave up after connections were refused for \(Int(min(Backoff.loopbackRefusedGrace, seconds))) s: \(cause.message)"
            : "Gave up after retrying for up to \(Int(seconds)) s; last error: \(cause.message)"
        return error
    }
}
