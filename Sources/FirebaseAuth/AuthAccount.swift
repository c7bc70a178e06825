import FBStorage
import Foundation

/// Signing in with a credential or an email link, and the email actions that need no signed-in
/// user (password reset, action codes), as in the Apple SDK, over the core's calls.
extension Auth {
    /// Signs in with a credential (a new account the first time for an identity provider's).
    public func signIn(with credential: AuthCredential, completion: ((AuthDataResult?, Error?) -> Void)? = nil) {
        signIn(withCore: credential.core, completion) { [core] credential, done throws(FBStorage.StorageError) in
            try core.signIn(with: credential, completion: done)
        }
    }

    @discardableResult
    public func signIn(with credential: AuthCredential) async throws -> AuthDataResult {
        try await awaiting { signIn(with: credential, completion: $0) }
    }

    // MARK: Email-link sign-in

    /// Mails `email` a sign-in link leading to `actionCodeSettings.url`. Settings without
    /// `handleCodeInApp` fail with `internalError` and a reason (the Apple SDK stops the program).
    public func sendSignInLink(toEmail email: String, actionCodeSettings: ActionCodeSettings,
                               completion: ((Error?) -> Void)? = nil) {
        run(withCore: actionCodeSettings.core(), completion.map(Self.single)) { [core] settings, done throws(FBStorage.StorageError) in
            try core.sendSignInLink(toEmail: email, settings: settings, completion: done)
        }
    }

    public func sendSignInLink(toEmail email: String, actionCodeSettings: ActionCodeSettings) async throws {
        try await awaitingError { sendSignInLink(toEmail: email, actionCodeSettings: actionCodeSettings, completion: $0) }
    }

    /// Whether `link` is an email sign-in link (also inside a Dynamic Link); nothing is sent.
    public func isSignIn(withEmailLink link: String) -> Bool { FBStorage.Auth.isSignInLink(link) }

    /// Signs in with the sign-in link mailed to `email` (a new account the first time).
    public func signIn(withEmail email: String, link: String, completion: ((AuthDataResult?, Error?) -> Void)? = nil) {
        guard !email.isEmpty else { return deliver(.failure(AuthErrorCode.missingEmail.error()), to: completion.map(Self.pair)) }
        signIn(withCore: .success(()), completion) { [core] _, done throws(FBStorage.StorageError) in
            try core.signIn(email: email, link: link, completion: done)
        }
    }

    @discardableResult
    public func signIn(withEmail email: String, link: String) async throws -> AuthDataResult {
        try await awaiting { signIn(withEmail: email, link: link, completion: $0) }
    }

    // MARK: Password reset and action codes

    /// Mails a password-reset code to `email`.
    public func sendPasswordReset(withEmail email: String, completion: ((Error?) -> Void)? = nil) {
        sendPasswordReset(email, settings: nil, completion)
    }

    public func sendPasswordReset(withEmail email: String, actionCodeSettings: ActionCodeSettings,
                                  completion: ((Error?) -> Void)? = nil) {
        sendPasswordReset(email, settings: actionCodeSettings, completion)
    }

    public func sendPasswordReset(withEmail email: String, actionCodeSettings: ActionCodeSettings? = nil) async throws {
        try await awaitingError { sendPasswordReset(email, settings: actionCodeSettings, $0) }
    }

    private func sendPasswordReset(_ email: String, settings: ActionCodeSettings?, _ completion: ((Error?) -> Void)?) {
        guard !email.isEmpty else { return deliver(.failure(AuthErrorCode.missingEmail.error()), to: completion.map(Self.single)) }
        run(withCore: Self.optional(settings), completion.map(Self.single)) { [core] settings, done throws(FBStorage.StorageError) in
            try core.sendPasswordReset(email: email, settings: settings, completion: done)
        }
    }

    /// How `email` can sign in ("password", "emailLink", providers): empty when no account has
    /// it, and always when the project protects against email enumeration, as in the Apple SDK,
    /// which deprecates it for that reason.
    @available(*, deprecated, message: "`fetchSignInMethods` is deprecated and will be removed in a future release. This method returns an empty list when Email Enumeration Protection is enabled.")
    public func fetchSignInMethods(forEmail email: String, completion: (([String]?, Error?) -> Void)? = nil) {
        guard !email.isEmpty else { return deliver(.failure(AuthErrorCode.missingEmail.error()), to: completion.map(Self.pair)) }
        run({ [core] done throws(FBStorage.StorageError) in try core.fetchSignInMethods(forEmail: email, completion: done) },
            completion.map(Self.pair)) { $0 }
    }

    @available(*, deprecated, message: "`fetchSignInMethods` is deprecated and will be removed in a future release. This method returns an empty list when Email Enumeration Protection is enabled.")
    public func fetchSignInMethods(forEmail email: String) async throws -> [String] {
        try await awaiting { fetchSignInMethods(forEmail: email, completion: $0) }
    }

    /// The email a password-reset code is for; the code stays usable.
    public func verifyPasswordResetCode(_ code: String, completion: @escaping (String?, Error?) -> Void) {
        run({ [core] done throws(FBStorage.StorageError) in try core.verifyPasswordResetCode(code, completion: done) },
            Self.pair(completion)) { $0 }
    }

    public func verifyPasswordResetCode(_ code: String) async throws -> String {
        try await awaiting { verifyPasswordResetCode(code, completion: $0) }
    }

    /// Sets the password of a password-reset code's account and uses the code up.
    public func confirmPasswordReset(withCode code: String, newPassword: String, completion: @escaping (Error?) -> Void) {
        run({ [core] done throws(FBStorage.StorageError) in
            try core.confirmPasswordReset(code: code, newPassword: newPassword, completion: done)
        }, Self.single(completion)) { $0 }
    }

    public func confirmPasswordReset(withCode code: String, newPassword: String) async throws {
        try await awaitingError { confirmPasswordReset(withCode: code, newPassword: newPassword, completion: $0) }
    }

    /// Applies an email verification or email change code; `User.reload()` shows it.
    public func applyActionCode(_ code: String, completion: @escaping (Error?) -> Void) {
        run({ [core] done throws(FBStorage.StorageError) in try core.applyActionCode(code, completion: done) },
            Self.single(completion)) { $0 }
    }

    public func applyActionCode(_ code: String) async throws {
        try await awaitingError { applyActionCode(code, completion: $0) }
    }

    // MARK: Helpers

    /// A sign-in whose input was prepared first (a credential): its failure is delivered as the
    /// call's (the core reads the account as part of the sign-in).
    func signIn<Input>(withCore input: Result<Input, NSError>, _ completion: ((AuthDataResult?, Error?) -> Void)?,
                       _ start: @escaping (Input, @escaping StorageCompletion<AuthUser>) throws(FBStorage.StorageError) -> Void) {
        run(withCore: input, completion.map(Self.pair), start) { [self] signedIn in dataResult(signedIn) }
    }

    /// `run` with an input prepared first.
    func run<Input, Value, Answer>(withCore input: Result<Input, NSError>, _ completion: ((Result<Answer, NSError>) -> Void)?,
                                   _ start: @escaping (Input, @escaping StorageCompletion<Value>) throws(FBStorage.StorageError) -> Void,
                                   transform: @escaping (Value) -> Answer) {
        switch input {
        case .failure(let error): deliver(.failure(error), to: completion)
        case .success(let input): run({ done throws(FBStorage.StorageError) in try start(input, done) }, completion, transform: transform)
        }
    }

    func run<Input>(withCore input: Result<Input, NSError>, _ completion: ((Result<Void, NSError>) -> Void)?,
                    _ start: @escaping (Input, @escaping StorageCompletion<Void>) throws(FBStorage.StorageError) -> Void) {
        run(withCore: input, completion, start) { $0 }
    }

    /// Optional settings as the core's (a set one without URL fails).
    static func optional(_ settings: ActionCodeSettings?) -> Result<FBStorage.ActionCodeSettings?, NSError> {
        settings.map { $0.core().map(Optional.some) } ?? .success(nil)
    }

    /// The Apple SDK's `(Error?)` completion as a `Result` one.
    static func single(_ completion: @escaping (Error?) -> Void) -> (Result<Void, NSError>) -> Void {
        { result in
            if case .failure(let error) = result { completion(error) } else { completion(nil) }
        }
    }
}

/// The async form of an `(Error?)` completion-handler operation.
func awaitingError(_ start: (@escaping (Error?) -> Void) -> Void) async throws {
    try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, Error>) in
        start { error in
            if let error { continuation.resume(throwing: error) } else { continuation.resume() }
        }
    }
}
