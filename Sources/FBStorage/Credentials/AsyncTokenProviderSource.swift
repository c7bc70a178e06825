/// A caller's asynchronous provider: asked on the storage's callback thread, it answers later,
/// from any thread, through the `TokenRequest` it was given. Transfers that need no token go on
/// meanwhile.
final class AsyncTokenProviderSource: AuthTokenSource {
    typealias Provider = @Sendable (_ forceRefresh: Bool, _ request: TokenRequest) -> Void

    private let provider: Provider
    private let callbackQueue: CallbackQueue
    let scheme: AuthScheme

    init(_ provider: @escaping Provider, callbackQueue: CallbackQueue, scheme: AuthScheme = .firebase) {
        self.provider = provider
        self.callbackQueue = callbackQueue
        self.scheme = scheme
    }

    var canRefresh: Bool { true }

    func token(rejected: String?, completion: @escaping @Sendable (Result<String?, StorageError>) -> Void) {
        let request = TokenRequest(completion)
        let forceRefresh = rejected != nil
        let provider = self.provider
        if !callbackQueue.enqueue({ provider(forceRefresh, request) }) {
            try? request.fail(with: StorageError(code: .cancelled, message: "The storage closed before its token provider was asked"))
        }
    }
}

/// One request's pending token: answered exactly once.
public final class TokenRequest: @unchecked Sendable {
    private let pending: AnswerOnce<String?>

    init(_ completion: @escaping @Sendable (Result<String?, StorageError>) -> Void) {
        pending = AnswerOnce("This token request", completion)
    }

    /// Answers with `token` (nil: no token).
    /// - Throws: `invalidArgument` when already answered, or when the token holds a control
    ///   character (the waiting request then fails with that error too).
    public func complete(token: String?) throws(StorageError) {
        if let token {
            do throws(StorageError) {
                try HeaderValue.check(token, field: "The auth token")
            } catch {
                try fail(with: error)
                throw error
            }
        }
        try answer(.success(token))
    }

    /// Fails the waiting request with `unauthenticated` and `message`.
    /// - Throws: `invalidArgument` when already answered.
    public func fail(message: String?) throws(StorageError) {
        try answer(.failure(StorageError(code: .unauthenticated,
                                         message: message.map { "The token provider failed: \($0)" } ?? "The token provider failed")))
    }

    /// Fails the waiting request with `error`.
    /// - Throws: `invalidArgument` when already answered.
    public func fail(with error: StorageError) throws(StorageError) { try answer(.failure(error)) }

    /// Keeps `object` alive until the request is answered (an answered request keeps nothing).
    package func holdUntilAnswered(_ object: AnyObject) { pending.holdUntilAnswered(object) }

    private func answer(_ result: Result<String?, StorageError>) throws(StorageError) { try pending.answer(result) }
}
