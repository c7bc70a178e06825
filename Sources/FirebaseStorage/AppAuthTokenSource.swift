import FBStorage
import FirebaseCore

/// The ID tokens of the app's Auth, as the Apple SDK's storage gets them through `AuthInterop`:
/// asked per request from whatever token source FirebaseAuth registered for the app (none:
/// requests go unauthenticated), so `Auth.auth(app:)` called before or after `Storage.storage(app:)`
/// signs the storage's requests alike.
final class AppAuthTokenSource: AuthTokenSource, @unchecked Sendable {
    private let app: FirebaseApp

    init(app: FirebaseApp) { self.app = app }

    private var appSource: (any AuthTokenSource)? { app.component((any AuthTokenSource).self) }

    var canRefresh: Bool { appSource?.canRefresh ?? false }

    func token(rejected: String?, completion: @escaping @Sendable (Result<String?, FBStorage.StorageError>) -> Void) {
        guard let appSource else { return completion(.success(nil)) }
        appSource.token(rejected: rejected, completion: completion)
    }
}
