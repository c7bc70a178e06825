import FBStorage
import FirebaseCore

/// The App Check tokens of the app's App Check, as the Apple SDK's storage gets them through
/// `AppCheckInterop`: asked per request from whatever token source FirebaseAppCheck registered
/// (or makes, once a provider factory is installed) for the app; none: requests carry no token.
final class AppAppCheckTokenSource: AppCheckTokenSource, @unchecked Sendable {
    private let app: FirebaseApp

    init(app: FirebaseApp) { self.app = app }

    func appCheckToken(rejected: String?, completion: @escaping @Sendable (Result<String?, FBStorage.StorageError>) -> Void) {
        guard let appSource = app.component((any AppCheckTokenSource).self) else { return completion(.success(nil)) }
        appSource.appCheckToken(rejected: rejected, completion: completion)
    }
}
