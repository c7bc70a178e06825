/// What attests this app and answers an App Check token (the SDKs' `AppCheckProvider`): the
/// debug provider, a caller's custom provider, a token minted elsewhere.
public protocol AppCheckProvider: Sendable {
    /// Delivers a new token through `completion`, exactly once, on any thread. `limitedUse`: a
    /// token for one replay-protected call, never cached. `appCheck` is the asking App Check (its
    /// project, app and endpoints, for a provider that calls the exchange).
    func token(for appCheck: AppCheck, limitedUse: Bool, completion: @escaping @Sendable (Result<AppCheckToken, StorageError>) -> Void)
}

/// A token minted elsewhere (a backend's `createToken`, another process), used until it expires;
/// then the App Check has no token to give, and says so. It is no limited-use token.
public struct MintedAppCheckProvider: AppCheckProvider {
    public let minted: AppCheckToken

    public init(_ minted: AppCheckToken) { self.minted = minted }

    /// - Throws: `invalidArgument` for an empty token, one with a control character, or an
    ///   expiry already past.
    public init(token: String, expiresAt: Double) throws(StorageError) {
        guard !token.isEmpty else { throw .invalidArgument("The App Check token is empty") }
        try HeaderValue.check(token, field: "The App Check token")
        guard expiresAt > IDToken.now() else { throw .invalidArgument("The App Check token's expiry time has already passed") }
        self.init(AppCheckToken(token: token, expiresAt: expiresAt))
    }

    public func token(for appCheck: AppCheck, limitedUse: Bool,
                      completion: @escaping @Sendable (Result<AppCheckToken, StorageError>) -> Void) {
        guard !limitedUse else {
            return completion(.failure(StorageError(code: .appCheckProviderFailed,
                                                    message: "App Check: a token given as minted cannot serve as a limited-use token")))
        }
        guard IDToken.now() < minted.expiresAt else {
            return completion(.failure(StorageError(code: .appCheckProviderFailed,
                                                    message: "App Check: the token given has expired; give a new one")))
        }
        completion(.success(minted))
    }
}
