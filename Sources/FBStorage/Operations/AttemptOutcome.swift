/// What to do after one HTTP attempt: the retry rules shared by operations, uploads and downloads.
enum AttemptOutcome {
    case success(HTTPResponse)
    /// 401 with a token provider that has not been asked to refresh yet.
    case refreshToken
    /// App Check's 401 with an App Check that has not been asked to refresh yet.
    case refreshAppCheckToken
    /// A transport failure, 408, 429 or 5xx: back off and try again. `refused`: a loopback
    /// endpoint refused the connection (nothing listens there; see `Backoff.nextDelay`).
    case retry(cause: StorageError, retryAfter: Double?, refused: Bool = false)
    case fail(StorageError)

    /// What an attempt did with App Check: whether it sent a token, and whether one may be
    /// asked for anew after App Check's 401.
    struct AppCheck {
        var sent = false
        var mayRefresh = false
    }

    /// Classifies an attempt's result. `errorBody` replaces the response body for streamed
    /// responses, whose body went to a handler instead of `HTTPResponse.body`.
    init(_ result: Result<HTTPResponse, TransportError>, subject: RequestSubject, settings: StorageSettings,
         mayRefreshToken: Bool, appCheck: AppCheck = AppCheck(), errorBody: [UInt8]? = nil) {
        switch result {
        case .success(let response) where (200..<300).contains(response.status):
            self = .success(response)
        case .success(let response) where AppCheckErrors.isStorageRefusal(status: response.status, body: errorBody ?? response.body):
            self = appCheck.mayRefresh
                ? .refreshAppCheckToken
                : .fail(AppCheckErrors.storageRefused(sent: appCheck.sent, status: response.status, body: errorBody ?? response.body))
        case .success(let response) where response.status == 401 && mayRefreshToken:
            self = .refreshToken
        case .success(let response) where response.status == 407:
            // Only a proxy answers 407 (to a plain-http request it forwards).
            self = .fail(.proxyRefused(status: 407))
        case .success(let response):
            let error = StorageError.http(status: response.status, body: errorBody ?? response.body, subject: subject)
            self = Backoff.isRetryable(status: response.status)
                ? .retry(cause: error, retryAfter: Backoff.parseRetryAfter(response.headers.value("Retry-After")))
                : .fail(error)
        case .failure(let error):
            if let permanent = error.storageError(subject: subject) {
                self = .fail(permanent)
            } else if error.isConnectionRefused && settings.endpoint.isLoopback {
                self = .retry(cause: StorageError(code: .unknown, message: settings.nothingListeningMessage), retryAfter: nil, refused: true)
            } else {
                self = .retry(cause: StorageError(code: .unknown, message: error.description), retryAfter: nil)
            }
        }
    }

    /// This outcome with the credentials sent (`AuthTokens.secrets`) removed from its error.
    func redacting(_ secrets: [String]) -> AttemptOutcome {
        switch self {
        case .retry(let cause, let retryAfter, let refused): .retry(cause: cause.redacting(secrets), retryAfter: retryAfter, refused: refused)
        case .fail(let error): .fail(error.redacting(secrets))
        case .success, .refreshToken, .refreshAppCheckToken: self
        }
    }
}

extension TransportError: CustomStringConvertible {
    public var description: String {
        switch self {
        case .cancelled: return "The request was cancelled"
        case .aborted: return "The request was aborted"
        case .bodyTooLarge(let limit): return "The server's response was larger than \(limit) bytes"
        case .failed(_, let message): return "Network error: \(message)"
        case .proxyRefused(let status): return StorageError.proxyRefused(status: status).message
        case .hostNotFound(let host): return "The host name \"\(host)\" does not exist (the resolver answered that no such name is known)"
        case .rejectedByLibcurl(let message): return "Internal error: \(message)"
        case .invalidRequest(let message): return message
        case .handshakeInterrupted(let message): return "Network error: \(message)"
        }
    }

    /// The error to report at once, or nil when the failure is worth retrying.
    func storageError(subject: RequestSubject) -> StorageError? {
        switch self {
        case .cancelled: return .cancelled(subject)
        case .aborted, .bodyTooLarge: return StorageError(code: .unknown, message: description)
        case .proxyRefused(let status): return .proxyRefused(status: status)
        case .hostNotFound: return StorageError(code: .hostNotFound, message: "\(description): is the endpoint's name spelled right?")
        case .rejectedByLibcurl: return StorageError(code: .internalError, message: description)
        case .invalidRequest: return StorageError(code: .invalidArgument, message: description)
        case .handshakeInterrupted: return nil
        case .failed(let code, let message):
            if Self.tlsCurlCodes.contains(code) {
                return StorageError(code: .tls, message: "TLS failed for \(subject): \(message)")
            }
            return Self.permanentCurlCodes.contains(code) ? StorageError(code: .unknown, message: description) : nil
        }
    }

    /// CURLE_COULDNT_CONNECT: on a loopback address, the port refused the connection.
    var isConnectionRefused: Bool {
        if case .failed(let code, _) = self { return code == 7 }
        return false
    }

    /// libcurl failures a retry cannot fix: bad URLs and protocols (CURLE_* values).
    private static let permanentCurlCodes: Set<Int32> = [1, 3, 4]
    /// TLS failures, never retried (a retry would only repeat them): the handshake (35), the
    /// server's certificate (60: CA, expiry, host name; 51, 83, 90, 91), the local setup
    /// (53, 54, 58, 59, 64, 66, 77: a CA file that cannot be read; 80, 82).
    private static let tlsCurlCodes: Set<Int32> = [35, 51, 53, 54, 58, 59, 60, 64, 66, 77, 80, 82, 83, 90, 91]
}

extension StorageError {
    /// A proxy refused to forward the request: 407 wants credentials (`fbs_storage_set_proxy`),
    /// a 401 to a CONNECT rejected them (tinyproxy's answer to a wrong password).
    static func proxyRefused(status: Int) -> StorageError {
        let message = switch status {
        case 407: "The proxy requires credentials (HTTP 407 Proxy Authentication Required)"
        case 401: "The proxy rejected the credentials (HTTP 401)"
        default: "The proxy refused to forward the request (HTTP \(status))"
        }
        return StorageError(code: .unknown, message: message, httpStatus: status)
    }

    static func cancelled(path: StoragePath) -> StorageError { cancelled(.object(path)) }

    static func cancelled(_ subject: RequestSubject) -> StorageError {
        StorageError(code: .cancelled, message: "The operation on \(subject) was cancelled")
    }

    /// The deadline passed on retryable failures (or `backoff` found nothing listening on a
    /// loopback endpoint); a spent 429 is a quota error.
    static func retryLimit(after cause: StorageError, seconds: Double, backoff: Backoff) -> StorageError {
        var error = cause
        error.code = cause.httpStatus == 429 ? .quotaExceeded : .retryLimitExceeded
        error.message = backoff.nothingListening
            ? "Gave up after connections were refused for \(Self.seconds(min(backoff.refusedGrace, seconds))) s: \(cause.message)"
            : "Gave up after retrying for up to \(Self.seconds(seconds)) s; last error: \(cause.message)"
        return error
    }

    /// Whole seconds as an integer ("2"), others with one decimal ("0.5").
    private static func seconds(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String((value * 10).rounded() / 10)
    }
}
