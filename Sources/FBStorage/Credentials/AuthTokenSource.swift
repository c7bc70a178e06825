/// Where a storage gets the credential of a request: the interop seam between storage and
/// sign-in (as FirebaseStorage reaches FirebaseAuth through `AuthInterop`). The storage asks for
/// "a token for this request"; how it is obtained (a fixed string, a caller's provider, `Auth`,
/// a service account) is the source's business, and so is its scheme.
public protocol AuthTokenSource: AnyObject, Sendable {
    /// How the tokens are sent: a user's ID token (`Firebase`, rules apply) or an OAuth2 access
    /// token (`Bearer`, admin access).
    var scheme: AuthScheme { get }

    /// Whether asking again after a 401 may give another token.
    var canRefresh: Bool { get }

    /// Delivers the token for one request (nil: send none) through `completion`, exactly once,
    /// on any thread, possibly before returning. `rejected` is the token a server has just
    /// refused with 401: the source then answers with a newer one, refreshing unless it already
    /// holds one. Must not block: transfers of the storage wait on the thread that asks.
    func token(rejected: String?, completion: @escaping @Sendable (Result<String?, StorageError>) -> Void)
}

/// The `Authorization` scheme a source's tokens go with.
public enum AuthScheme: String, Sendable {
    /// `Authorization: Firebase <ID token>`: a Firebase Auth user; Security Rules decide.
    case firebase = "Firebase"
    /// `Authorization: Bearer <access token>`: OAuth2 (a service account, gcloud, a metadata
    /// server); admin access, rules bypassed.
    case bearer = "Bearer"
}

extension AuthTokenSource {
    public var scheme: AuthScheme { .firebase }
}

/// One token for every request; a 401 cannot be helped.
final class FixedTokenSource: AuthTokenSource {
    let tokenValue: String
    let scheme: AuthScheme
    init(_ token: String, scheme: AuthScheme = .firebase) {
        tokenValue = token
        self.scheme = scheme
    }
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
    let scheme: AuthScheme
    init(checked provider: @escaping @Sendable (_ forceRefresh: Bool) -> Result<String?, StorageError>,
         scheme: AuthScheme = .firebase) {
        self.provider = provider
        self.scheme = scheme
    }
    convenience init(_ provider: @escaping @Sendable (_ forceRefresh: Bool) -> String?, scheme: AuthScheme = .firebase) {
        self.init(checked: { .success(provider($0)) }, scheme: scheme)
    }
    var canRefresh: Bool { true }
    func token(rejected: String?, completion: @escaping @Sendable (Result<String?, StorageError>) -> Void) {
        completion(provider(rejected != nil))
    }
}
