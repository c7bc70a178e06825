/// The account lifecycle beyond signing in: credentials, linking, email and password changes,
/// verification and reset codes, as the SDKs' `User` and `Auth` methods. Calls on the current
/// user answer the updated user, who becomes the current user (ID-token listeners hear it);
/// a sign-out or another sign-in meanwhile fails them with `authNoUser`.
extension Auth {
    /// Signs in with a credential: email and password, or an identity provider's token (a new
    /// account the first time).
    /// - Throws: `authWrongPassword`, `authUserNotFound`, `authInvalidCredential`,
    ///   `authAccountExistsWithDifferentCredential`, `authUserDisabled`.
    public func signIn(with credential: AuthCredential) throws(StorageError) -> AuthUser {
        try runBlocking { done throws(StorageError) in try startCredentialSignIn(credential, done) }
    }

    public func signIn(with credential: AuthCredential, completion: @escaping StorageCompletion<AuthUser>) throws(StorageError) {
        try runAsync({ done throws(StorageError) in try startCredentialSignIn(credential, done) }, completion: completion)
    }

    /// Adds the credential's sign-in method to the current user, who keeps the uid (an
    /// anonymous user becomes permanent).
    /// - Throws: `authNoUser`, `authProviderAlreadyLinked`, `authCredentialAlreadyInUse`,
    ///   `authEmailAlreadyInUse`, `authWeakPassword`, `authInvalidCredential`.
    public func link(with credential: AuthCredential) throws(StorageError) -> AuthUser {
        try runBlocking { done throws(StorageError) in try startLink(credential, done) }
    }

    public func link(with credential: AuthCredential, completion: @escaping StorageCompletion<AuthUser>) throws(StorageError) {
        try runAsync({ done throws(StorageError) in try startLink(credential, done) }, completion: completion)
    }

    /// Signs the current user in again (a recent sign-in, for `requiresRecentLogin` calls).
    /// - Throws: `authUserMismatch` when the credential is another user's (the current user stays).
    public func reauthenticate(with credential: AuthCredential) throws(StorageError) -> AuthUser {
        try runBlocking { done throws(StorageError) in try startReauthenticate(credential, done) }
    }

    public func reauthenticate(with credential: AuthCredential, completion: @escaping StorageCompletion<AuthUser>) throws(StorageError) {
        try runAsync({ done throws(StorageError) in try startReauthenticate(credential, done) }, completion: completion)
    }

    /// Removes a sign-in method ("password", "google.com", …) from the current user.
    public func unlink(providerID: String) throws(StorageError) -> AuthUser {
        try runBlocking { done throws(StorageError) in try startUnlink(providerID, done) }
    }

    public func unlink(providerID: String, completion: @escaping StorageCompletion<AuthUser>) throws(StorageError) {
        try runAsync({ done throws(StorageError) in try startUnlink(providerID, done) }, completion: completion)
    }

    /// Changes the current user's email at once (`verifyBeforeUpdateEmail` asks the new
    /// address first). - Throws: `authRequiresRecentLogin`, `authEmailAlreadyInUse`, `authInvalidEmail`.
    public func updateEmail(_ email: String) throws(StorageError) -> AuthUser {
        try runBlocking { done throws(StorageError) in try startAccountUpdate("email", email, what: "email address", done) }
    }

    public func updateEmail(_ email: String, completion: @escaping StorageCompletion<AuthUser>) throws(StorageError) {
        try runAsync({ done throws(StorageError) in try startAccountUpdate("email", email, what: "email address", done) },
                     completion: completion)
    }

    /// - Throws: `authRequiresRecentLogin`, `authWeakPassword`.
    public func updatePassword(_ password: String) throws(StorageError) -> AuthUser {
        try runBlocking { done throws(StorageError) in try startAccountUpdate("password", password, what: "password", done) }
    }

    public func updatePassword(_ password: String, completion: @escaping StorageCompletion<AuthUser>) throws(StorageError) {
        try runAsync({ done throws(StorageError) in try startAccountUpdate("password", password, what: "password", done) },
                     completion: completion)
    }

    /// Refreshes the current user's ID token and reads the account (`accounts:lookup`): the
    /// profile and `isEmailVerified` as the server has them now, in the token's claims too.
    public func reload() throws(StorageError) -> AuthUser {
        try runBlocking { done throws(StorageError) in startReload(done) }
    }

    public func reload(completion: @escaping StorageCompletion<AuthUser>) throws(StorageError) {
        try runAsync({ done throws(StorageError) in startReload(done) }, completion: completion)
    }

    /// Reads the current user's account (`accounts:lookup`) with the ID token as it is: the
    /// sign-in methods (`providers`), the dates and the profile, as the SDKs do after a sign-in.
    public func fetchAccount() throws(StorageError) -> AuthUser {
        try runBlocking { done throws(StorageError) in startLookup(done) }
    }

    public func fetchAccount(completion: @escaping StorageCompletion<AuthUser>) throws(StorageError) {
        try runAsync({ done throws(StorageError) in startLookup(done) }, completion: completion)
    }

    /// Mails the current user a code that verifies their email (`apply_action_code`); `settings`
    /// name where the mail's link leads.
    /// - Throws: `authNoUser`; `invalidArgument` for a user without email.
    public func sendEmailVerification(settings: ActionCodeSettings? = nil) throws(StorageError) {
        try runBlocking { done throws(StorageError) in try startSendCode(verifying: nil, settings, done) }
    }

    public func sendEmailVerification(settings: ActionCodeSettings? = nil,
                                      completion: @escaping StorageCompletion<Void>) throws(StorageError) {
        try runAsync({ done throws(StorageError) in try startSendCode(verifying: nil, settings, done) }, completion: completion)
    }

    /// Mails a code to `email`; once applied (`applyActionCode`) it becomes the user's email.
    public func verifyBeforeUpdateEmail(_ email: String, settings: ActionCodeSettings? = nil) throws(StorageError) {
        try runBlocking { done throws(StorageError) in try startSendCode(verifying: email, settings, done) }
    }

    public func verifyBeforeUpdateEmail(_ email: String, settings: ActionCodeSettings? = nil,
                                        completion: @escaping StorageCompletion<Void>) throws(StorageError) {
        try runAsync({ done throws(StorageError) in try startSendCode(verifying: email, settings, done) }, completion: completion)
    }

    /// Mails a password-reset code to `email` (no user needed).
    /// - Throws: `authUserNotFound`, `authInvalidEmail`.
    public func sendPasswordReset(email: String, settings: ActionCodeSettings? = nil) throws(StorageError) {
        try runBlocking { done throws(StorageError) in try startSendPasswordReset(email, settings, done) }
    }

    public func sendPasswordReset(email: String, settings: ActionCodeSettings? = nil,
                                  completion: @escaping StorageCompletion<Void>) throws(StorageError) {
        try runAsync({ done throws(StorageError) in try startSendPasswordReset(email, settings, done) }, completion: completion)
    }

    /// The email a password-reset code is for; the code stays usable.
    /// - Throws: `authInvalidActionCode`, `authExpiredActionCode`.
    public func verifyPasswordResetCode(_ code: String) throws(StorageError) -> String {
        try runBlocking { done throws(StorageError) in try startResetPassword(code, newPassword: nil, done) }
    }

    public func verifyPasswordResetCode(_ code: String, completion: @escaping StorageCompletion<String>) throws(StorageError) {
        try runAsync({ done throws(StorageError) in try startResetPassword(code, newPassword: nil, done) }, completion: completion)
    }

    /// Sets the password of a password-reset code's account (the code is used up).
    /// - Throws: `authInvalidActionCode`, `authExpiredActionCode`, `authWeakPassword`.
    public func confirmPasswordReset(code: String, newPassword: String) throws(StorageError) {
        try runBlocking { done throws(StorageError) in try startResetPassword(code, newPassword: newPassword) { done($0.map { _ in () }) } }
    }

    public func confirmPasswordReset(code: String, newPassword: String, completion: @escaping StorageCompletion<Void>) throws(StorageError) {
        try runAsync({ done throws(StorageError) in try startResetPassword(code, newPassword: newPassword) { done($0.map { _ in () }) } },
                     completion: completion)
    }

    /// Applies an email verification or email change code. The current user's profile shows it
    /// after `reload()` (or the next token refresh).
    /// - Throws: `authInvalidActionCode`, `authExpiredActionCode`.
    public func applyActionCode(_ code: String) throws(StorageError) {
        try runBlocking { done throws(StorageError) in try startApplyActionCode(code, done) }
    }

    public func applyActionCode(_ code: String, completion: @escaping StorageCompletion<Void>) throws(StorageError) {
        try runAsync({ done throws(StorageError) in try startApplyActionCode(code, done) }, completion: completion)
    }

    // MARK: Requests

    private func startCredentialSignIn(_ credential: AuthCredential, _ done: @escaping StorageCompletion<AuthUser>) throws(StorageError) {
        let (method, fields) = credential.request
        try startSignIn(method, fields, call: "sign-in (\(credential.providerID))", done)
    }

    private func startLink(_ credential: AuthCredential, _ done: @escaping StorageCompletion<AuthUser>) throws(StorageError) {
        guard let user = currentUser else { throw Self.noUser }
        guard !user.hasSignIn(of: credential.providerID) else {
            throw StorageError(code: .authProviderAlreadyLinked, message: "The user already has a \(credential.providerID) sign-in")
        }
        let (method, fields) = credential.linkRequest
        let call = "link (\(credential.providerID))"
        startSessionUpdate(method, fields, call: call) { result in
            done(result.map { user, answer in
                // As the SDKs: a provider's link answers with what the provider said, a password's with nothing.
                guard case .identityProvider = credential.kind else { return user }
                return user.with(AdditionalUserInfo(answer: answer, method: method, user: user))
            })
        }
    }

    /// An account call that answers a new session for the current user (a link): its tokens
    /// replace the user's; the user is answered with the call's answer. An answer without the
    /// account's providers (signInWithIdp's, a password link's) is followed by a read of the
    /// account before listeners hear of the link, so that `providers` shows it; the link stands
    /// when that read fails, unless its answer ended the session (the user is then signed out,
    /// and the call fails with it).
    private func startSessionUpdate(_ method: String, _ fields: [(String, JSONValue)], call: String,
                                    _ answered: @escaping StorageCompletion<(user: AuthUser, answer: [String: JSONValue])>) {
        let generation = generation
        postAsUser(method, fields + [("returnSecureToken", .bool(true))], call: call) { [self] result in
            let answer: [String: JSONValue]
            switch result.flatMap({ answer in Self.session(answer, call: call).map { _ in answer } }) {
            case .failure(let error): return answered(.failure(error))
            case .success(let session): answer = session
            }
            let done: StorageCompletion<AuthUser> = { result in answered(result.map { ($0, answer) }) }
            guard answer["providerUserInfo"] == nil else { return done(applyProfileUpdate(answer, generation: generation)) }
            if case .failure(let error) = applyProfileUpdate(answer, generation: generation, notifying: false) {
                return done(.failure(error))
            }
            startLookup(call: call, notifying: true) { [self] read in
                guard case .failure(let error) = read else { return done(read) }
                if AuthErrors.endsSession(error) { return done(read) }
                done(applyProfileUpdate(answer, generation: generation))
            }
        }
    }

    private func startReauthenticate(_ credential: AuthCredential, _ done: @escaping StorageCompletion<AuthUser>) throws(StorageError) {
        guard let user = currentUser else { throw Self.noUser }
        let generation = generation
        let (method, fields) = credential.reauthenticationRequest
        let call = "reauthenticate (\(credential.providerID))"
        try postAccounts(method, fields + [("returnSecureToken", .bool(true))], call: call) { [self] result in
            done(result.flatMap { answer in
                Self.session(answer, call: call).flatMap { signedIn in
                    guard signedIn.uid == user.uid else {
                        return .failure(StorageError(code: .authUserMismatch,
                                                     message: "Firebase Auth \(call): the credential is another user's"))
                    }
                    return applyProfileUpdate(answer, generation: generation).map { user in
                        user.with(AdditionalUserInfo(answer: answer, method: method, user: user))
                    }
                }
            })
        }
    }

    private func startUnlink(_ providerID: String, _ done: @escaping StorageCompletion<AuthUser>) throws(StorageError) {
        guard !providerID.isEmpty else { throw .invalidArgument("The provider id is empty") }
        try startAccountChange([("deleteProvider", .array([.string(providerID)]))], call: "unlink (\(providerID))", done)
    }

    private func startAccountUpdate(_ field: String, _ value: String, what: String,
                                    _ done: @escaping StorageCompletion<AuthUser>) throws(StorageError) {
        guard !value.isEmpty else { throw .invalidArgument("The \(what) is empty") }
        try startAccountChange([(field, .string(value))], call: "update \(what)", done)
    }

    /// `accounts:update` as the current user; the answer (and the tokens it brings) updates it.
    /// An answer without tokens (an unlink) is followed by a refresh: the token's claims
    /// (`firebase.identities`, which rules and the link checks read) change with the account.
    private func startAccountChange(_ fields: [(String, JSONValue)], call: String,
                                    _ done: @escaping StorageCompletion<AuthUser>) throws(StorageError) {
        guard currentUser != nil else { throw Self.noUser }
        let generation = generation
        postAsUser("update", fields + [("returnSecureToken", .bool(true))], call: call) { [self] result in
            guard case .success(let answer) = result, answer["idToken"] == nil else {
                return done(result.flatMap { answer in applyProfileUpdate(answer, generation: generation) })
            }
            startIDToken(true) { [self] refreshed in
                done(refreshed.flatMap { _ in applyProfileUpdate(answer, generation: generation) })
            }
        }
    }

    private func startReload(_ done: @escaping StorageCompletion<AuthUser>) {
        startIDToken(true) { [self] refreshed in
            if case .failure(let error) = refreshed { return done(.failure(error)) }
            startLookup(call: "reload", notifying: true, done)
        }
    }

    private func startLookup(call: String = "fetch account", notifying: Bool = false, _ done: @escaping StorageCompletion<AuthUser>) {
        let generation = generation
        postAsUser("lookup", [], call: call) { [self] result in
            done(result.flatMap { answer in Self.account(in: answer, call: call) }.flatMap { account in
                applyProfileUpdate(account, generation: generation, notifying: notifying)
            })
        }
    }

    private func startSendCode(verifying newEmail: String?, _ settings: ActionCodeSettings?,
                               _ done: @escaping StorageCompletion<Void>) throws(StorageError) {
        guard let user = currentUser else { throw Self.noUser }
        var fields: [(String, JSONValue)]
        if let newEmail {
            guard !newEmail.isEmpty else { throw .invalidArgument("The new email address is empty") }
            fields = [("requestType", .string("VERIFY_AND_CHANGE_EMAIL")), ("newEmail", .string(newEmail))]
        } else {
            guard user.email != nil else { throw .invalidArgument("The user has no email address to verify") }
            fields = [("requestType", .string("VERIFY_EMAIL"))]
        }
        fields += try settings?.fields() ?? []
        postAsUser("sendOobCode", fields, call: newEmail == nil ? "send email verification" : "verify before update email") { result in
            done(result.map { _ in () })
        }
    }

    private func startSendPasswordReset(_ email: String, _ settings: ActionCodeSettings?,
                                        _ done: @escaping StorageCompletion<Void>) throws(StorageError) {
        guard !email.isEmpty else { throw .invalidArgument("The email address is empty") }
        let fields: [(String, JSONValue)] = [("requestType", .string("PASSWORD_RESET")), ("email", .string(email))]
        try postAccounts("sendOobCode", fields + (settings?.fields() ?? []),
                         call: "send password reset") { result in done(result.map { _ in () }) }
    }

    /// `accounts:resetPassword`: with a new password it resets, without it only reads the code.
    /// Answers the code's email.
    private func startResetPassword(_ code: String, newPassword: String?, _ done: @escaping StorageCompletion<String>) throws(StorageError) {
        guard !code.isEmpty else { throw .invalidArgument("The action code is empty") }
        var fields: [(String, JSONValue)] = [("oobCode", .string(code))]
        if let newPassword {
            guard !newPassword.isEmpty else { throw .invalidArgument("The new password is empty") }
            fields.append(("newPassword", .string(newPassword)))
        }
        let call = newPassword == nil ? "verify password reset code" : "confirm password reset"
        try postAccounts("resetPassword", fields, call: call) { result in
            done(result.flatMap { answer in
                guard answer["requestType"]?.stringValue.map({ $0 == "PASSWORD_RESET" }) ?? true else {
                    return .failure(StorageError(code: .authInvalidActionCode, message: "Firebase Auth \(call): the code is not a password-reset code"))
                }
                guard let email = answer["email"]?.stringValue else {
                    return .failure(StorageError(code: .unknown, message: "Firebase Auth \(call): the answer names no email address"))
                }
                return .success(email)
            })
        }
    }

    private func startApplyActionCode(_ code: String, _ done: @escaping StorageCompletion<Void>) throws(StorageError) {
        guard !code.isEmpty else { throw .invalidArgument("The action code is empty") }
        try postAccounts("update", [("oobCode", .string(code))], call: "apply action code") { result in done(result.map { _ in () }) }
    }
}
