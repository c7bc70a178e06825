/// Where a storage gets the App Check token of a request: the interop seam between storage and
/// App Check (as FirebaseStorage reaches FirebaseAppCheck through `AppCheckInterop`), beside
/// `AuthTokenSource` for the user's token. How the token is obtained (a debug secret exchanged, a
/// caller's provider, a token minted elsewhere) is the source's business.
public protocol AppCheckTokenSource: AnyObject, Sendable {
    /// Delivers the token for one request (nil: send none) through `completion`, exactly once,
    /// on any thread, possibly before returning. `rejected` is the token a server has just
    /// refused with App Check's 401: the source then answers with a newer one. Must not block:
    /// transfers of the storage wait on the thread that asks.
    func appCheckToken(rejected: String?, completion: @escaping @Sendable (Result<String?, StorageError>) -> Void)
}
