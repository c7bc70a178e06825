import FBStorage
import Foundation

/// A Firebase user, as in the Apple SDK: `Auth.currentUser`, or the user of a sign-in's result.
/// Its profile follows the current session while it is the signed-in user. Completion handlers run
/// on the auth's `callbackQueue`.
open class User: NSObject {
    /// The auth this user signed in with.
    public private(set) weak var auth: Auth?
    private let lock = NSLock()
    private var snapshot: AuthUser

    init(auth: Auth, snapshot: AuthUser) {
        self.auth = auth
        self.snapshot = snapshot
    }

    /// Takes the profile and tokens of a newer state of the same user.
    func update(_ newer: AuthUser) { lock.withLock { snapshot = newer } }

    var current: AuthUser { lock.withLock { snapshot } }

    /// The user's ID in the project, unique and stable (`request.auth.uid` in Security Rules).
    open var uid: String { current.uid }
    /// "Firebase", as in the Apple SDK.
    open var providerID: String { "Firebase" }
    /// Whether the user signed in anonymously.
    open var isAnonymous: Bool { current.isAnonymous }
    open var email: String? { current.email }
    open var displayName: String? { current.displayName }
    open var photoURL: URL? { current.photoURL.flatMap(URL.init(string:)) }
    /// The session's refresh token (for advanced uses; the core refreshes ID tokens by itself).
    open var refreshToken: String? { current.refreshToken }

    // MARK: ID tokens

    /// The user's ID token, refreshed first when it is about to expire.
    open func getIDToken(completion: ((String?, Error?) -> Void)?) {
        getIDTokenForcingRefresh(false, completion: completion)
    }

    /// The user's ID token, refreshed first when it is about to expire or `forceRefresh` is true.
    open func getIDTokenForcingRefresh(_ forceRefresh: Bool, completion: ((String?, Error?) -> Void)?) {
        idToken(forceRefresh: forceRefresh, completion.map(Auth.pair)) { .success($0) }
    }

    open func getIDToken(forcingRefresh forceRefresh: Bool = false) async throws -> String {
        try await awaiting { getIDTokenForcingRefresh(forceRefresh, completion: $0) }
    }

    /// The Apple SDK's older name of `getIDToken(forcingRefresh:)`.
    open func idTokenForcingRefresh(_ forceRefresh: Bool) async throws -> String {
        try await getIDToken(forcingRefresh: forceRefresh)
    }

    /// The user's ID token with its decoded claims.
    open func getIDTokenResult(completion: ((AuthTokenResult?, Error?) -> Void)?) {
        getIDTokenResult(forcingRefresh: false, completion: completion)
    }

    /// The user's ID token with its decoded claims, refreshed first if `forcingRefresh`.
    open func getIDTokenResult(forcingRefresh: Bool, completion: ((AuthTokenResult?, Error?) -> Void)?) {
        idToken(forceRefresh: forcingRefresh, completion.map(Auth.pair)) { token in
            Result { try AuthTokenResult(token: token) }.mapError { $0 as NSError }
        }
    }

    open func getIDTokenResult(forcingRefresh forceRefresh: Bool = false) async throws -> AuthTokenResult {
        try await awaiting { getIDTokenResult(forcingRefresh: forceRefresh, completion: $0) }
    }

    /// Gets the ID token from the core, then `transform`s it (decoding can fail).
    private func idToken<Answer>(forceRefresh: Bool, _ completion: ((Result<Answer, NSError>) -> Void)?,
                                 _ transform: @escaping (String) -> Result<Answer, NSError>) {
        withSignedInAuth(completion) { auth in
            auth.run({ [core = auth.core] done throws(FBStorage.StorageError) in
                try core.idToken(forceRefresh: forceRefresh, completion: done)
            }, completion.map { completion in { completion($0.flatMap { $0 }) } }, transform: transform)
        }
    }

    // MARK: Profile

    /// A request to change this user's display name and photo URL (`commitChanges` sends it).
    open func createProfileChangeRequest() -> UserProfileChangeRequest {
        UserProfileChangeRequest(user: self)
    }

    func commitProfileChanges(displayName: ProfileChange, photoURL: ProfileChange,
                              completion: ((Result<Void, NSError>) -> Void)?) {
        withSignedInAuth(completion) { auth in
            auth.run({ [core = auth.core] done throws(FBStorage.StorageError) in
                try core.updateProfile(displayName: displayName, photoURL: photoURL, completion: done)
            }, completion) { [self] updated in update(updated) }
        }
    }

    // MARK: Deletion

    /// Deletes the user's account, then signs out.
    open func delete(completion: ((Error?) -> Void)? = nil) {
        let done = completion.map { completion in { (result: Result<Void, NSError>) in
            if case .failure(let error) = result { completion(error) } else { completion(nil) }
        } }
        withSignedInAuth(done) { auth in
            auth.run({ [core = auth.core] done throws(FBStorage.StorageError) in try core.deleteUser(completion: done) },
                     done) { $0 }
        }
    }

    open func delete() async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, Error>) in
            delete { error in
                if let error { continuation.resume(throwing: error) } else { continuation.resume() }
            }
        }
    }

    /// Runs `body` with the auth when this user is its signed-in user; otherwise fails: the core
    /// keeps the tokens of the current session only.
    func withSignedInAuth<Answer>(_ completion: ((Result<Answer, NSError>) -> Void)?, _ body: (Auth) -> Void) {
        guard let auth else {
            return DispatchQueue.global().async {
                completion?(.failure(AuthErrorCode.nullUser.error(reason: "The user's Auth no longer exists.")))
            }
        }
        guard auth.isSignedIn(self) else {
            return auth.deliver(.failure(AuthErrorCode.nullUser.error(
                reason: "This user is no longer signed in (signed out, or another user signed in).")), to: completion)
        }
        body(auth)
    }
}
