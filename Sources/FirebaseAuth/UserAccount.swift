import FBStorage
import Foundation

/// The account lifecycle of the signed-in user, as in the Apple SDK: linking and unlinking
/// sign-in methods, reauthentication, email and password changes, verification, reload. Each
/// fails with `nullUser` when this user is no longer the signed-in one.
extension User {
    /// Whether the email is verified, as of the last sign-in, token refresh or `reload()`.
    public var isEmailVerified: Bool { current.isEmailVerified }

    // MARK: Credentials

    /// Adds the credential's sign-in method to this user, who keeps the uid (an anonymous user
    /// becomes permanent, with its files).
    public func link(with credential: AuthCredential, completion: ((AuthDataResult?, Error?) -> Void)? = nil) {
        signIn(credential, completion) { core, credential, done throws(FBStorage.StorageError) in
            try core.link(with: credential, completion: done)
        }
    }

    @discardableResult
    public func link(with credential: AuthCredential) async throws -> AuthDataResult {
        try await awaiting { link(with: credential, completion: $0) }
    }

    /// Signs this user in again (before a change that needs a recent sign-in); another user's
    /// credential fails with `userMismatch` and this user stays signed in.
    public func reauthenticate(with credential: AuthCredential, completion: ((AuthDataResult?, Error?) -> Void)? = nil) {
        signIn(credential, completion) { core, credential, done throws(FBStorage.StorageError) in
            try core.reauthenticate(with: credential, completion: done)
        }
    }

    @discardableResult
    public func reauthenticate(with credential: AuthCredential) async throws -> AuthDataResult {
        try await awaiting { reauthenticate(with: credential, completion: $0) }
    }

    /// Removes a sign-in method ("password", "google.com", …) from this user.
    public func unlink(fromProvider provider: String, completion: ((User?, Error?) -> Void)? = nil) {
        change(completion.map(Auth.pair)) { core, done throws(FBStorage.StorageError) in
            try core.unlink(providerID: provider, completion: done)
        } transform: { $0 }
    }

    public func unlink(fromProvider provider: String) async throws -> User {
        try await awaiting { unlink(fromProvider: provider, completion: $0) }
    }

    // MARK: Email and password

    @available(*, deprecated,
               message: "`updateEmail` is deprecated and will be removed in a future release. Use sendEmailVerification(beforeUpdatingEmail:) instead.")
    public func updateEmail(to email: String, completion: ((Error?) -> Void)? = nil) {
        change(completion.map(Auth.single)) { core, done throws(FBStorage.StorageError) in
            try core.updateEmail(email, completion: done)
        } transform: { _ in () }
    }

    @available(*, deprecated,
               message: "`updateEmail` is deprecated and will be removed in a future release. Use sendEmailVerification(beforeUpdatingEmail:) instead.")
    public func updateEmail(to email: String) async throws {
        try await awaitingError { updateEmail(to: email, completion: $0) }
    }

    /// Changes the password; an empty one fails with `weakPassword`, as in the Apple SDK.
    public func updatePassword(to password: String, completion: ((Error?) -> Void)? = nil) {
        guard !password.isEmpty else {
            return DispatchQueue.global().async { completion?(AuthErrorCode.weakPassword.error(reason: "Missing Password")) }
        }
        change(completion.map(Auth.single)) { core, done throws(FBStorage.StorageError) in
            try core.updatePassword(password, completion: done)
        } transform: { _ in () }
    }

    public func updatePassword(to password: String) async throws {
        try await awaitingError { updatePassword(to: password, completion: $0) }
    }

    /// Reads the account again: `isEmailVerified` and the profile as the server has them now (the
    /// ID token's claims too, so storage rules see a verification).
    public func reload(completion: ((Error?) -> Void)? = nil) {
        change(completion.map(Auth.single)) { core, done throws(FBStorage.StorageError) in
            try core.reload(completion: done)
        } transform: { _ in () }
    }

    public func reload() async throws {
        try await awaitingError { reload(completion: $0) }
    }

    // MARK: Email verification

    /// Mails this user a code verifying their email (`Auth.applyActionCode(_:)` applies it).
    public func sendEmailVerification(completion: ((Error?) -> Void)? = nil) {
        sendCode(verifying: nil, settings: nil, completion)
    }

    public func sendEmailVerification(with actionCodeSettings: ActionCodeSettings, completion: ((Error?) -> Void)? = nil) {
        sendCode(verifying: nil, settings: actionCodeSettings, completion)
    }

    public func sendEmailVerification(with actionCodeSettings: ActionCodeSettings? = nil) async throws {
        try await awaitingError { sendCode(verifying: nil, settings: actionCodeSettings, $0) }
    }

    /// Mails `email` a code that, applied, makes it this user's email.
    public func sendEmailVerification(beforeUpdatingEmail email: String, actionCodeSettings: ActionCodeSettings? = nil,
                                      completion: ((Error?) -> Void)? = nil) {
        sendCode(verifying: email, settings: actionCodeSettings, completion)
    }

    public func sendEmailVerification(beforeUpdatingEmail newEmail: String, actionCodeSettings: ActionCodeSettings? = nil) async throws {
        try await awaitingError { sendCode(verifying: newEmail, settings: actionCodeSettings, $0) }
    }

    private func sendCode(verifying newEmail: String?, settings: ActionCodeSettings?, _ completion: ((Error?) -> Void)?) {
        let done = completion.map(Auth.single)
        withSignedInAuth(done) { auth in
            auth.run(withCore: Auth.optional(settings), done) { [core = auth.core] settings, done throws(FBStorage.StorageError) in
                if let newEmail {
                    try core.verifyBeforeUpdateEmail(newEmail, settings: settings, completion: done)
                } else {
                    try core.sendEmailVerification(settings: settings, completion: done)
                }
            }
        }
    }

    // MARK: Running

    /// A call on this signed-in user whose answer is the updated user: this object takes it.
    private func change<Answer>(_ completion: ((Result<Answer, NSError>) -> Void)?,
                                _ start: @escaping (FBStorage.Auth, @escaping StorageCompletion<AuthUser>) throws(FBStorage.StorageError) -> Void,
                                transform: @escaping (User) -> Answer) {
        withSignedInAuth(completion) { auth in
            auth.run({ [core = auth.core] done throws(FBStorage.StorageError) in try start(core, done) }, completion) { [self] updated in
                update(updated)
                return transform(self)
            }
        }
    }

    /// A credential call on this signed-in user: its answer is a sign-in's.
    private func signIn(_ credential: AuthCredential, _ completion: ((AuthDataResult?, Error?) -> Void)?,
                        _ start: @escaping (FBStorage.Auth, FBStorage.AuthCredential, @escaping StorageCompletion<AuthUser>)
                            throws(FBStorage.StorageError) -> Void) {
        let done = completion.map(Auth.pair)
        withSignedInAuth(done) { auth in
            auth.signIn(withCore: credential.core, completion) { [core = auth.core] credential, done throws(FBStorage.StorageError) in
                try start(core, credential, done)
            }
        }
    }
}
