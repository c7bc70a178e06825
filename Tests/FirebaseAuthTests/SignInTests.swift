// The Apple API's sign-in flows against the bundled emulator's Auth routes, in both flavors:
// anonymous, email and password, custom tokens; their completion and async forms; the errors'
// codes and domain; a failed sign-in keeps the current user; delete signs out.
import EmulatorProcess
import FirebaseAuth
import Foundation
import Testing

/// An unsigned custom token as firebase-admin mints against an Auth emulator.
func customToken(uid: String, claims: [String: Any]) -> String {
    func encoded(_ object: [String: Any]) -> String {
        try! JSONSerialization.data(withJSONObject: object).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
    let now = Int(Date().timeIntervalSince1970)
    let payload: [String: Any] = [
        "aud": "https://identitytoolkit.googleapis.com/google.identity.identitytoolkit.v1.IdentityToolkit",
        "uid": uid, "claims": claims, "iat": now, "exp": now + 3600,
    ]
    return encoded(["alg": "none", "typ": "JWT"]) + "." + encoded(payload) + "."
}

@Suite("FirebaseAuth sign-in flows against the emulator", .timeLimit(.minutes(1)))
struct SignInTests {
    @Test("signInAnonymously calls back on the callback queue; a second call returns the same anonymous user",
          arguments: Flavor.allCases)
    func anonymous(flavor: Flavor) async throws {
        let auth = makeAuth(flavor)
        #expect(auth.currentUser == nil)
        let (result, error, onQueue) = await called { done in
            auth.signInAnonymously { result, error in done((result, error, AuthTestQueue.isCurrent)) }
        }
        #expect(error == nil)
        #expect(onQueue)
        let user = try #require(result?.user)
        #expect(user.isAnonymous && !user.uid.isEmpty && user.email == nil && user.providerID == "Firebase")
        #expect(auth.currentUser === user)
        #expect(result?.additionalUserInfo?.isNewUser == true && result?.additionalUserInfo?.profile == nil)
        let again = try await auth.signInAnonymously()
        #expect(again.user === user && again.additionalUserInfo?.isNewUser == false)
        #expect(try await user.getIDTokenResult().signInProvider == "anonymous")
    }

    @Test("createUser signs in with a password account; signOut; signIn(withEmail:) finds the same uid",
          arguments: Flavor.allCases)
    func password(flavor: Flavor) async throws {
        let auth = makeAuth(flavor)
        let email = newEmail()
        let created = try await auth.createUser(withEmail: email, password: "secret-password")
        let uid = created.user.uid
        #expect(created.user.email == email && !created.user.isAnonymous)
        #expect(auth.currentUser?.uid == uid)
        try auth.signOut()
        #expect(auth.currentUser == nil)

        let (result, error) = await called { done in
            auth.signIn(withEmail: email, password: "secret-password") { result, error in done((result, error)) }
        }
        #expect(error == nil)
        #expect(result?.user.uid == uid && result?.user.email == email)
        #expect(created.additionalUserInfo?.isNewUser == true && result?.additionalUserInfo?.isNewUser == false)
        #expect(result?.additionalUserInfo?.providerID == "password")
        #expect(try await auth.currentUser?.getIDTokenResult().signInProvider == "password")
    }

    @Test("the Apple SDK's error codes in FIRAuthErrorDomain; a failed sign-in keeps the current user",
          arguments: Flavor.allCases)
    func errors(flavor: Flavor) async throws {
        let auth = makeAuth(flavor)
        let email = newEmail()
        let uid = try await auth.createUser(withEmail: email, password: "secret-password").user.uid

        func failure(_ start: (@escaping (AuthDataResult?, Error?) -> Void) -> Void) async -> (AuthErrorCode?, String?) {
            let (result, error) = await called { done in start { done(($0, $1)) } }
            #expect(result == nil)
            return authCode(error)
        }
        let domain = "FIRAuthErrorDomain"
        #expect(AuthErrors.domain == domain)
        #expect(await failure { auth.signIn(withEmail: email, password: "wrong-password", completion: $0) } == (.wrongPassword, domain))
        #expect(AuthErrorCode.wrongPassword.rawValue == 17009)
        #expect(auth.currentUser?.uid == uid)
        #expect(await failure { auth.createUser(withEmail: email, password: "another-one", completion: $0) } == (.emailAlreadyInUse, domain))
        #expect(await failure { auth.createUser(withEmail: newEmail(), password: "abc", completion: $0) } == (.weakPassword, domain))
        #expect(await failure { auth.createUser(withEmail: "not an email", password: "secret-password", completion: $0) } == (.invalidEmail, domain))
        #expect(await failure { auth.signIn(withEmail: newEmail(), password: "secret-password", completion: $0) } == (.userNotFound, domain))
        #expect(await failure { auth.signIn(withEmail: "", password: "secret-password", completion: $0) } == (.missingEmail, domain))
        #expect(await failure { auth.createUser(withEmail: newEmail(), password: "", completion: $0) } == (.weakPassword, domain))
        #expect(await failure { auth.signIn(withCustomToken: "not-a-token", completion: $0) } == (.invalidCustomToken, domain))
        #expect(await failure { auth.signIn(withCustomToken: "", completion: $0) } == (.invalidCustomToken, domain))
        #expect(auth.currentUser?.uid == uid)

        // The async forms throw the same NSErrors, with the Apple SDK's name and description.
        do {
            _ = try await auth.signIn(withEmail: email, password: "wrong-password")
            Issue.record("a wrong password signed in")
        } catch let error as NSError {
            #expect(error.domain == domain && error.code == 17009)
            #expect(error.userInfo[AuthErrors.userInfoNameKey] as? String == "ERROR_WRONG_PASSWORD")
            #expect(error.localizedDescription == "The password is invalid or the user does not have a password.")
            #expect(!(error.userInfo[NSLocalizedFailureReasonErrorKey] as? String ?? "").contains("wrong-password"))
        }
    }

    @Test("signIn(withCustomToken:) carries custom claims to getIDTokenResult; the token's dates",
          arguments: Flavor.allCases)
    func customTokenClaims(flavor: Flavor) async throws {
        let auth = makeAuth(flavor)
        let uid = "custom-\(UUID().uuidString.prefix(8))"
        let result = try await auth.signIn(withCustomToken: customToken(uid: uid, claims: ["admin": true, "tier": "gold"]))
        #expect(result.user.uid == uid && !result.user.isAnonymous)

        let (tokenResult, error, onQueue) = await called { done in
            result.user.getIDTokenResult { tokenResult, error in done((tokenResult, error, AuthTestQueue.isCurrent)) }
        }
        #expect(error == nil && onQueue)
        let token = try #require(tokenResult)
        #expect(token.claims["admin"] as? Bool == true)
        #expect(token.claims["tier"] as? String == "gold")
        #expect(token.claims["sub"] as? String == uid && token.claims["user_id"] as? String == uid)
        #expect(token.signInProvider == "custom")
        #expect(token.expirationDate.timeIntervalSince(token.issuedAtDate) == TimeInterval(AuthEmulators.tokenLifetime))
        #expect(token.authDate <= token.issuedAtDate)
        #expect(abs(token.issuedAtDate.timeIntervalSinceNow) < 60)
        #expect(try await result.user.getIDToken() == token.token)
    }

    @Test("getIDTokenForcingRefresh gets a token from Secure Token; delete removes the account and signs out",
          arguments: Flavor.allCases)
    func refreshAndDelete(flavor: Flavor) async throws {
        let auth = makeAuth(flavor)
        let email = newEmail()
        let user = try await auth.createUser(withEmail: email, password: "secret-password").user
        let first = try await user.getIDTokenResult()
        let (refreshed, error) = await called { done in
            user.getIDTokenForcingRefresh(true) { token, error in done((token, error)) }
        }
        #expect(error == nil)
        let token = try #require(refreshed)
        #expect(try await user.getIDTokenResult().token == token)
        // A refresh keeps the sign-in time and the user.
        #expect(try await user.getIDTokenResult().authDate == first.authDate)
        #expect(auth.currentUser === user)

        let deleteError = await called { done in user.delete { done($0) } }
        #expect(deleteError == nil)
        #expect(auth.currentUser == nil)
        // The account is gone, and the deleted user has no session left.
        #expect(await authCode(called { done in auth.signIn(withEmail: email, password: "secret-password") { done($1) } }).0
                == .userNotFound)
        #expect(await authCode(called { done in user.getIDToken { done($1) } }).0 == .nullUser)
        await #expect(throws: NSError.self) { try await user.delete() }
    }

    @Test("a profile change request sets the display name and photo URL; nil deletes; a request commits once",
          arguments: Flavor.allCases)
    func profileChange(flavor: Flavor) async throws {
        let auth = makeAuth(flavor)
        let user = try await auth.createUser(withEmail: newEmail(), password: "secret-password").user
        let change = user.createProfileChangeRequest()
        change.displayName = "Ada Lovelace"
        change.photoURL = URL(string: "https://example.com/ada.png")
        let error = await called { done in change.commitChanges { done($0) } }
        #expect(error == nil)
        #expect(user.displayName == "Ada Lovelace" && user.photoURL?.absoluteString == "https://example.com/ada.png")
        #expect(auth.currentUser === user)
        // Committed once: a second call fails. A new request with nil deletes the photo, keeps the name.
        #expect(await called { done in change.commitChanges { done($0) } } != nil)
        let removal = user.createProfileChangeRequest()
        removal.photoURL = nil
        try await removal.commitChanges()
        #expect(user.photoURL == nil && user.displayName == "Ada Lovelace")
        let claims = try await user.getIDTokenResult(forcingRefresh: true).claims
        #expect(claims["name"] as? String == "Ada Lovelace" && claims["picture"] == nil)
    }
}
