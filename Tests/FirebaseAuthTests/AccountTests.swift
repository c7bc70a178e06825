// The Apple API's account lifecycle against the bundled emulator, in both flavors: an anonymous
// user links an email, verifies it through the code the emulator "mailed", and a storage rule on
// request.auth.token.email_verified lets its upload through FirebaseStorage; password reset;
// Google credentials (the official emulator's fake IdP tokens) for sign-in and linking;
// email-link sign-in; email and password changes; the Apple SDK's code of each failure.
import EmulatorProcess
import FirebaseAuth
import FirebaseCore
import FirebaseStorage
import Foundation
import Testing

@Suite("FirebaseAuth account lifecycle against the emulator", .timeLimit(.minutes(1)))
struct AccountTests {
    @Test("anonymous → link email → verify with the mailed code → reload: isEmailVerified, and the rule lets the upload through",
          arguments: Flavor.allCases)
    func linkAndVerify(flavor: Flavor) async throws {
        let app = makeApp(flavor)
        let auth = configured(Auth.auth(app: app), flavor)
        let storage = Storage.storage(app: app)
        storage.useEmulator(withHost: "127.0.0.1", port: AuthEmulators.port(flavor))
        let anonymous = try await auth.signInAnonymously().user
        let uid = anonymous.uid
        let draft = storage.reference(withPath: "users/\(uid)/draft.txt")
        _ = try await draft.putDataAsync(Data("made anonymously".utf8))

        let email = newEmail()
        let (linked, linkError, onQueue) = await called { done in
            anonymous.link(with: EmailAuthProvider.credential(withEmail: email, password: "secret-password")) {
                done(($0, $1, AuthTestQueue.isCurrent))
            }
        }
        #expect(linkError == nil && onQueue && linked?.additionalUserInfo == nil)  // a password's link: none, as Apple's
        let user = try #require(linked?.user)
        #expect(user === anonymous && user.uid == uid && user.email == email && !user.isAnonymous && !user.isEmailVerified)
        #expect(user.providerData.map(\.providerID) == ["password"] && user.providerData.first?.uid == email)
        #expect(user.providerData.first?.email == email && user.phoneNumber == nil)
        let created = try #require(user.metadata.creationDate), lastSignIn = try #require(user.metadata.lastSignInDate)
        #expect(abs(created.timeIntervalSinceNow) < 60 && lastSignIn >= created)
        #expect(try await draft.data(maxSize: 100) == Data("made anonymously".utf8))  // the files stay the user's

        let verified = storage.reference(withPath: "verified/\(uid)/a.txt")
        let refused = await called { done in verified.putData(Data("x".utf8)) { done($1 as NSError?) } }
        #expect(refused?.code == StorageErrorCode.unauthorized.rawValue)

        let sendError = await called { done in user.sendEmailVerification { done($0) } }
        #expect(sendError == nil)
        try await auth.applyActionCode(EmulatorMail.code("VERIFY_EMAIL", for: email, flavor).code)
        #expect(!user.isEmailVerified)  // as of the last token, until reload
        try await user.reload()
        #expect(user.isEmailVerified && auth.currentUser === user)
        #expect(try await user.getIDTokenResult().claims["email_verified"] as? Bool == true)
        #expect(try await verified.putDataAsync(Data("verified".utf8)).size == 8)
    }

    @Test("password reset through the mailed code; a used code is invalidActionCode", arguments: Flavor.allCases)
    func passwordReset(flavor: Flavor) async throws {
        let auth = makeAuth(flavor)
        let email = newEmail()
        let uid = try await auth.createUser(withEmail: email, password: "secret-password").user.uid
        try auth.signOut()
        let sent = await called { done in auth.sendPasswordReset(withEmail: email) { done($0) } }
        #expect(sent == nil)
        let code = try await EmulatorMail.code("PASSWORD_RESET", for: email, flavor).code
        let info = try await auth.checkActionCode(code)
        #expect(info.operation == .passwordReset && info.email == email && info.previousEmail == nil)
        #expect(try await auth.verifyPasswordResetCode(code) == email)
        let weak = await called { done in auth.confirmPasswordReset(withCode: code, newPassword: "short") { done($0) } }
        #expect(authCode(weak).0 == .weakPassword)
        try await auth.confirmPasswordReset(withCode: code, newPassword: "a new secret-password")
        let used = await called { done in auth.confirmPasswordReset(withCode: code, newPassword: "another password") { done($0) } }
        #expect(authCode(used) == (.invalidActionCode, AuthErrors.domain))

        let old = await called { done in auth.signIn(withEmail: email, password: "secret-password") { done($1) } }
        #expect([.wrongPassword, .invalidCredential].contains(authCode(old).0))
        #expect(try await auth.signIn(withEmail: email, password: "a new secret-password").user.uid == uid)
        let unknown = await called { done in auth.sendPasswordReset(withEmail: newEmail()) { done($0) } }
        #expect(authCode(unknown).0 == .userNotFound)
        let malformed = await called { done in auth.verifyPasswordResetCode("not-a-code") { done($1) } }
        #expect(authCode(malformed).0 == .invalidActionCode)
    }

    @Test("Google credentials: sign-in, the same account again; an anonymous user links one, unlinks it; the errors",
          arguments: Flavor.allCases)
    func google(flavor: Flavor) async throws {
        let auth = makeAuth(flavor)
        let name = "g-\(UUID().uuidString.lowercased().prefix(8))"
        let credential = GoogleAuthProvider.credential(withIDToken: fakeIdPToken(sub: name, email: "\(name)@gmail.com"),
                                                       accessToken: "google-access-token")
        #expect(credential.provider == GoogleAuthProvider.id && GoogleAuthProvider.id == "google.com")
        let firstResult = try await auth.signIn(with: credential)
        let first = firstResult.user
        let info = try #require(firstResult.additionalUserInfo)
        #expect(info.isNewUser && info.providerID == "google.com" && info.username == nil)
        #expect(info.profile?["sub"] as? String == name && info.profile?["email"] as? String == "\(name)@gmail.com")
        #expect(first.email == "\(name)@gmail.com" && first.isEmailVerified && !first.isAnonymous)
        #expect(first.providerData.map(\.providerID) == ["google.com"] && first.providerData.first?.uid == name)
        #expect(try await first.getIDTokenResult().signInProvider == "google.com")
        try auth.signOut()
        let oauth = OAuthProvider.credential(providerID: .google, idToken: fakeIdPToken(sub: name, email: "\(name)@gmail.com"))
        let returning = try await auth.signIn(with: oauth)
        #expect(returning.user.uid == first.uid && returning.additionalUserInfo?.isNewUser == false)
        try auth.signOut()

        let anonymous = try await auth.signInAnonymously().user
        let other = "h-\(UUID().uuidString.lowercased().prefix(8))"
        let linkResult = try await anonymous.link(with: GoogleAuthProvider.credential(
            withIDToken: fakeIdPToken(sub: other, email: "\(other)@gmail.com"), accessToken: ""))
        let linked = linkResult.user
        // A provider's link answers what the provider said, as a sign-in does.
        let linkInfo = try #require(linkResult.additionalUserInfo)
        #expect(linkInfo.providerID == "google.com" && !linkInfo.isNewUser && linkInfo.profile?["sub"] as? String == other)
        #expect(linked.uid == anonymous.uid && linked.email == "\(other)@gmail.com" && linked.isEmailVerified)
        let google = linked.providerData.first { $0.providerID == GoogleAuthProvider.id }
        #expect(google?.uid == other && google?.email == "\(other)@gmail.com")
        let again = await called { done in linked.link(with: credential) { done($1) } }
        #expect(authCode(again).0 == .providerAlreadyLinked)
        let unlinked = try await linked.unlink(fromProvider: GoogleAuthProvider.id)
        #expect(unlinked === linked && !linked.providerData.contains { $0.providerID == GoogleAuthProvider.id })
        let inUse = await called { done in linked.link(with: credential) { done($1) } }
        #expect(authCode(inUse) == (.credentialAlreadyInUse, AuthErrors.domain))
        let junk = await called { done in
            auth.signIn(with: GoogleAuthProvider.credential(withIDToken: "not a token", accessToken: "")) { done($1) }
        }
        #expect(authCode(junk).0 == .invalidCredential)
        #expect(auth.currentUser === linked)  // failures keep the user
    }

    @Test("Twitter's token and secret and Apple's ID token with its raw nonce sign in; a nonce without an ID token is refused",
          arguments: Flavor.allCases)
    func oauthExtras(flavor: Flavor) async throws {
        let auth = makeAuth(flavor)
        let name = "t-\(UUID().uuidString.lowercased().prefix(8))"
        let twitter = TwitterAuthProvider.credential(withToken: "{\"sub\": \"\(name)\"}", secret: "token-secret")
        #expect(twitter.provider == "twitter.com" && (twitter as? OAuthCredential)?.secret == "token-secret")
        let tweeter = try await auth.signIn(with: twitter).user
        #expect(try await tweeter.getIDTokenResult().signInProvider == "twitter.com")
        try auth.signOut()
        let apple = OAuthProvider.credential(providerID: .apple, idToken: fakeIdPToken(sub: name, email: "\(name)@icloud.com"),
                                             rawNonce: "raw-nonce")
        #expect(try await auth.signIn(with: apple).user.email == "\(name)@icloud.com")
        let noSecret = await called { done in auth.signIn(with: TwitterAuthProvider.credential(withToken: "t", secret: "")) { done($1) } }
        #expect(authCode(noSecret).0 == .invalidCredential)
    }

    @available(*, deprecated, message: "tests the deprecated fetchSignInMethods")
    @Test("fetchSignInMethods: the password of an account, nothing for an unknown email, missingEmail for none",
          arguments: Flavor.allCases)
    func signInMethods(flavor: Flavor) async throws {
        let auth = makeAuth(flavor)
        let email = newEmail()
        _ = try await auth.createUser(withEmail: email, password: "secret-password")
        #expect(try await auth.fetchSignInMethods(forEmail: email) == ["password"])
        #expect(try await auth.fetchSignInMethods(forEmail: newEmail()) == [])
        let none = await called { done in auth.fetchSignInMethods(forEmail: "") { done($1) } }
        #expect(authCode(none).0 == .missingEmail)
        let malformed = await called { done in auth.fetchSignInMethods(forEmail: "not an email") { done($1) } }
        #expect(authCode(malformed).0 == .invalidEmail)
    }

    @Test("reauthenticate: the same user's credential works, another's is userMismatch; account exists elsewhere",
          arguments: Flavor.allCases)
    func reauthenticate(flavor: Flavor) async throws {
        let auth = makeAuth(flavor)
        let email = newEmail()
        let user = try await auth.createUser(withEmail: email, password: "secret-password").user
        let again = try await user.reauthenticate(with: EmailAuthProvider.credential(withEmail: email, password: "secret-password"))
        #expect(again.user === user && again.additionalUserInfo?.providerID == "password")
        #expect(again.additionalUserInfo?.isNewUser == false)
        let name = "r-\(UUID().uuidString.lowercased().prefix(8))"
        let stranger = OAuthProvider.credential(providerID: .gitHub, accessToken: "{\"sub\": \"\(name)\"}")
        let mismatch = await called { done in user.reauthenticate(with: stranger) { done($1) } }
        #expect(authCode(mismatch) == (.userMismatch, AuthErrors.domain))
        #expect(auth.currentUser === user)
        let missing = await called { done in
            user.reauthenticate(with: EmailAuthProvider.credential(withEmail: "", password: "x")) { done($1) }
        }
        #expect(authCode(missing).0 == .missingEmail)

        // An unverified password account: Google must not take it over silently.
        let takeover = GoogleAuthProvider.credential(withIDToken: fakeIdPToken(sub: name, email: email, verified: false),
                                                     accessToken: "")
        let exists = await called { done in auth.signIn(with: takeover) { done($1) } }
        #expect(authCode(exists).0 == .accountExistsWithDifferentCredential)
    }

    @Test("email and password changes, the verify-before-update flow, and nullUser for a user signed out",
          arguments: Flavor.allCases)
    func emailAndPassword(flavor: Flavor) async throws {
        let auth = makeAuth(flavor)
        let previous = newEmail()
        let user = try await auth.createUser(withEmail: previous, password: "secret-password").user
        let weak = await called { done in user.updatePassword(to: "") { done($0) } }
        #expect(authCode(weak).0 == .weakPassword)
        try await user.updatePassword(to: "another secret-password")
        let changed = newEmail()
        try await user.sendEmailVerification(beforeUpdatingEmail: changed)
        let code = try await EmulatorMail.code("VERIFY_AND_CHANGE_EMAIL", for: changed, flavor).code
        let info = await called { done in auth.checkActionCode(code) { done(($0, $1, AuthTestQueue.isCurrent)) } }
        #expect(info.0?.operation == .verifyAndChangeEmail && info.0?.email == changed && info.0?.previousEmail == previous)
        #expect(info.1 == nil && info.2)
        try await auth.applyActionCode(code)
        try await user.reload()
        #expect(user.email == changed && user.isEmailVerified)
        try auth.signOut()
        #expect(try await auth.signIn(withEmail: changed, password: "another secret-password").user.uid == user.uid)
        let signedOut = try await auth.signInAnonymously().user
        let stale = await called { done in user.reload { done($0) } }
        #expect(authCode(stale).0 == .nullUser && signedOut !== user)
    }

    @Test("email-link sign-in: the mailed link signs in (email verified), once; settings and links are checked",
          arguments: Flavor.allCases)
    func emailLink(flavor: Flavor) async throws {
        let auth = makeAuth(flavor)
        let settings = ActionCodeSettings()
        settings.url = URL(string: "https://app.example.com/finish?cart=1")
        settings.handleCodeInApp = true
        settings.setIOSBundleID("com.example.ios")
        settings.setAndroidPackageName("com.example.android", installIfNotAvailable: false, minimumVersion: "12")
        let email = newEmail()
        let sent = await called { done in auth.sendSignInLink(toEmail: email, actionCodeSettings: settings) { done($0) } }
        #expect(sent == nil)
        let link = try await EmulatorMail.code("EMAIL_SIGNIN", for: email, flavor).link
        #expect(auth.isSignIn(withEmailLink: link) && !auth.isSignIn(withEmailLink: "https://app.example.com/finish"))
        let user = try await auth.signIn(withEmail: email, link: link).user
        #expect(user.email == email && user.isEmailVerified && auth.currentUser === user)
        let used = await called { done in auth.signIn(withEmail: email, link: link) { done($1) } }
        #expect(authCode(used).0 == .invalidActionCode)
        let checked = await called { done in auth.checkActionCode("not-a-code") { done($1) } }
        #expect(authCode(checked).0 == .invalidActionCode)

        let noURL = await called { done in auth.sendSignInLink(toEmail: email, actionCodeSettings: ActionCodeSettings()) { done($0) } }
        #expect(authCode(noURL).0 == .missingContinueURI)
        let relative = ActionCodeSettings()
        relative.url = URL(string: "/finish")
        relative.handleCodeInApp = true
        let refused = await called { done in auth.sendSignInLink(toEmail: email, actionCodeSettings: relative) { done($0) } }
        #expect(authCode(refused).0 == .invalidContinueURI)
        settings.handleCodeInApp = false
        let inBrowser = await called { done in auth.sendSignInLink(toEmail: email, actionCodeSettings: settings) { done($0) } }
        #expect(authCode(inBrowser).0 == .internalError)
        #expect(auth.currentUser === user)
    }
}
