/// Where a storage gets the ID token of a request: the interop seam between storage and sign-in
/// (as FirebaseStorage reaches FirebaseAuth through `AuthInterop`). The storage asks for "a token
/// for this request"; how it is obtained (a fixed string, a caller's provider, `Auth`) is the
/// source's business.
public protocol AuthTokenSource: AnyObject, Sendable {
    /// Whether asking again after a 401 may give another token.
    var canRefresh: Bool { get }

    /// Delivers the token for one request (nil: send none) through `completion`, exactly once,
    /// on any thread, possibly before returning. `rejected` is the token a server has just
    /// refused with 401: the source then answers with a newer one, refreshing unless it already
    /// holds one. Must not block: transfers of the storage wait on the thread that asks.
    func token(rejected: String?, completion: @escaping @Sendable (Result<String?, StorageError>) -> Void)
}

/// One token for every request; a 401 cannot be helped.
final class FixedTokenSource: AuthTokenSource {
    let tokenValue: String
    init(_ token: String) { tokenValue = token }
    var canRefresh: Bool { false }
    func token(rejected: String?, completion: @escaping @Sendable (Result<String?, StorageError>) -> Void) {
        completion(.success(tokenValue))
    }
}

/// A caller's synchronous provider, asked on the transfer thread for every request (it must be
/// quick: `AsyncTokenProviderSource` serves providers that need a network call of their own).
final class TokenProviderSource: AuthTokenSource {
    /// The token, or why the provider's answer is unusable (e.g. not UTF-8).
    let provider: @Sendable (_ forceRefresh: Bool) -> Result<String?, StorageError>
    init(checked provider: @escaping @Sendable (_ forceRefresh: Bool) -> Result<String?, StorageError>) {
        self.provider = provider
    }
    convenience init(_ provider: @escaping @Sendable (_ forceRefresh: Bool) -> String?) {
        self.init(checked: { .success(provider($0)) })
    }
    var canRefresh: Bool { true }
    func token(rejected: String?, completion: @escaping @Sendable (Result<String?, StorageError>) -> Void) {
        completion(provider(rejected != nil))
    }
}
