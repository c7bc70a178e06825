/// A caller's provider (the SDKs' custom `AppCheckProvider`): asked on the App Check's callback
/// thread, it answers at once or later, from any thread, through the `AppCheckTokenRequest` it was
/// given, typically with a token its own backend minted after attesting the device
/// (firebase-admin's `createToken`). A provider that has not answered within `answerTimeout`
/// seconds fails the request (`appCheckProviderFailed`): the storage requests waiting for the
/// token are not left waiting for good.
public struct AppCheckCustomProvider: AppCheckProvider {
    public typealias Callback = @Sendable (_ limitedUse: Bool, _ request: AppCheckTokenRequest) -> Void

    let callback: Callback
    /// The operations' default retry time: as long as any request may wait for a service.
    public static let answerTimeout: Double = 120

    public init(_ callback: @escaping Callback) { self.callback = callback }

    public func token(for appCheck: AppCheck, limitedUse: Bool,
                      completion: @escaping @Sendable (Result<AppCheckToken, StorageError>) -> Void) {
        let request = AppCheckTokenRequest(completion)
        let callback = self.callback
        guard appCheck.callbackQueue.enqueue({ callback(limitedUse, request) }) else {
            try? request.fail(with: StorageError(code: .cancelled, message: "The App Check was released before its provider was asked"))
            return
        }
        // Failing an answered request does nothing; an answered one keeps neither its completion
        // nor the caller's data, so the timer holds no more than the request itself.
        appCheck.engine.schedule(after: Self.answerTimeout) {
            try? request.fail(with: StorageError(code: .appCheckProviderFailed,
                                                 message: "The App Check provider did not answer within \(Int(Self.answerTimeout)) s"))
        }
    }
}

/// One pending App Check token of a custom provider: answered exactly once.
public final class AppCheckTokenRequest: @unchecked Sendable {
    private let pending: AnswerOnce<AppCheckToken>

    init(_ completion: @escaping @Sendable (Result<AppCheckToken, StorageError>) -> Void) {
        pending = AnswerOnce("This App Check token request", completion)
    }

    /// Answers with `token`, valid until `expiresAt` (seconds since the Unix epoch).
    /// - Throws: `invalidArgument` when already answered, or for an empty token, one holding a
    ///   control character, or one already expired (the waiting request then fails with
    ///   `appCheckProviderFailed`, naming the fault).
    public func complete(token: String, expiresAt: Double) throws(StorageError) {
        do throws(StorageError) {
            guard !token.isEmpty else { throw .invalidArgument("The App Check provider answered an empty token") }
            try HeaderValue.check(token, field: "The App Check token")
            guard expiresAt > IDToken.now() else {
                throw .invalidArgument("The App Check provider answered a token that has already expired")
            }
        } catch {
            try answer(.failure(StorageError(code: .appCheckProviderFailed, message: error.message)))
            throw error
        }
        try answer(.success(AppCheckToken(token: token, expiresAt: expiresAt)))
    }

    /// Fails the waiting request with `appCheckProviderFailed` and `message`.
    /// - Throws: `invalidArgument` when already answered.
    public func fail(message: String?) throws(StorageError) {
        try answer(.failure(StorageError(code: .appCheckProviderFailed,
                                         message: message.map { "The App Check provider failed: \($0)" } ?? "The App Check provider failed")))
    }

    func fail(with error: StorageError) throws(StorageError) { try answer(.failure(error)) }

    /// Keeps `object` alive until the request is answered (an answered request keeps nothing).
    package func holdUntilAnswered(_ object: AnyObject) { pending.holdUntilAnswered(object) }

    private func answer(_ result: Result<AppCheckToken, StorageError>) throws(StorageError) { try pending.answer(result) }
}
