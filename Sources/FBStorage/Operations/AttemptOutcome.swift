/// What to do after one HTTP attempt: the retry rules shared by operations, uploads and downloads.
enum AttemptOutcome {
    case success(HTTPResponse)
    /// 401 with a token provider that has not been asked to refresh yet.
    case refreshToken
    /// A transport failure, 408, 429 or 5xx: back off and try again. `refused`: a loopback
    /// endpoint refused the connection (nothing listens there; see `Backoff.nextDelay`).
    case retry(cause: StorageError, retryAfter: Double?, refused: Bool = false)
    case fail(StorageError)

    /// Classifies an attempt's result. `errorBody` replaces the response body for streamed
    /// responses, whose body went to a handler instead of `HTTPResponse.body`.
    init(_ result: Result<HTTPResponse, TransportError>, path: StoragePath, settings: StorageSettings,
         mayRefreshToken: Bool, errorBody: [UInt8]? = nil) {
        switch result {
        case .success(let response) where (200..<300).contains(response.status):
            self = .success(response)
        case .success(let response) where response.status == 401 && mayRefreshToken:
            self = .refreshToken
        case .success(let response):
            let error = StorageError.http(status: response.status, body: errorBody ?? response.body, path: path)
            self = Backoff.isRetryable(status: response.status)
                ? .retry(cause: error, retryAfter: Backoff.parseRetryAfter(response.headers.value("Retry-After")))
                : .fail(error)
        case .failure(let error):
            if let permanent = error.storageError(path: path) {
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
        case .success, .refreshToken: self
        }
    }
}
