@testable import FBStorage
import Testing

/// The account calls' requests and their answers' effect on the current user, on a fake engine:
/// what each sends, what is refused before sending, and that an answer coming after a sign-out
/// does not bring the old user back.
@Suite struct AuthAccountTests {
    private func idToken(_ uid: String, serial: Int = 0, identities: String = "{}", provider: String = "anonymous") -> String {
        let now = Int(IDToken.now())
        let payload = #"{"user_id":"\#(uid)","sub":"\#(uid)","aud":"p","iat":\#(now),"exp":\#(now + 3600),"n":\#(serial),"#
            + #""firebase":{"sign_in_provider":"\#(provider)","identities":\#(identities)}}"#
        return "eyJhbGciOiJub25lIn0.\(Base64URL.encode(Array(payload.utf8)))."
    }

    /// A signed-in user whose ID token names `provider` and lists `identities`, and whose account
    /// read answers `account`.
    private func signedIn(identities: String = "{}", provider: String = "anonymous",
                          account: String = #""localId":"u1""#) throws -> (Auth, FakeEngine, String) {
        let engine = FakeEngine()
        let auth = try Auth(apiKey: "key", projectID: "p", engine: engine)
        let done = Completion<Result<AuthUser, StorageError>>()
        try auth.signInAnonymously { done.complete($0) }
        let token = idToken("u1", identities: identities, provider: provider)
        try engine.respond(200, body: Array(#"{"idToken":"\#(token)","refreshToken":"r1","localId":"u1"}"#.utf8))
        try engine.respondToAccountRead(idToken: token, account: account)
        _ = try done.wait().get()
        return (auth, engine, token)
    }

    @Test("a sign-in reads the account before the user becomes current; a failed read fails the sign-in")
    func signInReadsTheAccount() throws {
        let engine = FakeEngine()
        let auth = try Auth(apiKey: "key", projectID: "p", engine: engine)
        let done = Completion<Result<AuthUser, StorageError>>()
        try auth.signIn(email: "a@example.com", password: "secret-1") { done.complete($0) }
        let token = idToken("u1")
        try engine.respond(200, body: Array(#"{"idToken":"\#(token)","refreshToken":"r1","localId":"u1","email":"a@example.com"}"#.utf8))
        #expect(auth.currentUser == nil)   // not before its account is read
        try engine.respondToAccountRead(idToken: token, account: #""localId":"u1","email":"a@example.com","emailVerified":true,"createdAt":"1700000000000","lastLoginAt":"1700000500000","providerUserInfo":[{"providerId":"password","rawId":"a@example.com","email":"a@example.com"}]"#)
        let user = try done.wait().get()
        #expect(user.providers.map(\.providerID) == ["password"] && user.isEmailVerified)
        #expect((user.creationTime, user.lastSignInTime) == (1_700_000_000, 1_700_000_500))
        #expect(auth.currentUser == user && auth.currentUser?.providers == user.providers)

        auth.signOut()
        let failed = Completion<Result<AuthUser, StorageError>>()
        try auth.signIn(email: "a@example.com", password: "secret-1") { failed.complete($0) }
        try engine.respond(200, body: Array(#"{"idToken":"\#(token)","refreshToken":"r1","localId":"u1"}"#.utf8))
        try engine.respond(400, body: Array(#"{"error":{"code":400,"message":"USER_DISABLED","status":"INVALID_ARGUMENT"}}"#.utf8))
        if case .failure(let error) = failed.wait() { #expect(error.code == .authUserDisabled) } else { Issue.record("no error") }
        #expect(auth.currentUser == nil)
    }

    typealias AccountCall = (Auth, @escaping StorageCompletion<AuthUser>) throws -> Void

    /// Makes `call` as a freshly signed-in user and answers its requests with `answers` in turn:
    /// the Auth, the call's outcome and the user's ID token before the call.
    private func answered(_ answers: [(status: Int, body: String)], _ call: AccountCall) throws
        -> (auth: Auth, result: Result<AuthUser, StorageError>, token: String) {
        let (auth, engine, token) = try signedIn()
        let done = Completion<Result<AuthUser, StorageError>>()
        try call(auth) { done.complete($0) }
        for answer in answers { try engine.respond(answer.status, body: Array(answer.body.utf8)) }
        return (auth, done.wait(), token)
    }

    private func body(_ transfer: FakeEngine.Transfer) throws -> [String: JSONValue] {
        try #require(JSONValue.parse(transfer.bodyBytes)?.objectValue)
    }

    @Test("linking an email sends signUp with the user's ID token; the answer's tokens replace the user's, uid kept")
    func linkKeepsTheUser() throws {
        let (auth, engine, token) = try signedIn()
        let done = Completion<Result<AuthUser, StorageError>>()
        try auth.link(with: AuthCredential.email("a@example.com", password: "secret-1"), completion: { done.complete($0) })
        let request = try engine.oldest
        #expect(request.request.url.hasSuffix("/v1/accounts:signUp?key=key"))
        let sent = try body(request)
        #expect(sent["idToken"]?.stringValue == token && sent["email"]?.stringValue == "a@example.com")
        let linked = idToken("u1", serial: 1)
        try engine.respond(200, body: Array(#"{"idToken":"\#(linked)","refreshToken":"r2","localId":"u1","email":"a@example.com"}"#.utf8))
        // The answer lacks the account's providers: they are read before the link completes.
        let lookup = try engine.oldest
        #expect(lookup.request.url.hasSuffix("/v1/accounts:lookup?key=key"))
        #expect(try body(lookup)["idToken"]?.stringValue == linked)
        let account = #"{"users":[{"localId":"u1","email":"a@example.com","createdAt":"1700000000000","lastLoginAt":"1700000001500","#
            + #""providerUserInfo":[{"providerId":"password","rawId":"a@example.com","email":"a@example.com"}]}]}"#
        try engine.respond(200, body: Array(account.utf8))
        let user = try done.wait().get()
        #expect(user.uid == "u1" && user.idToken == linked && user.refreshToken == "r2" && user.email == "a@example.com")
        #expect(user.providers == [AuthProviderInfo(providerID: "password", uid: "a@example.com", email: "a@example.com",
                                                    displayName: nil, photoURL: nil, phoneNumber: nil)])
        #expect(user.creationTime == 1_700_000_000 && user.lastSignInTime == 1_700_000_001.5)
        #expect(auth.currentUser == user && auth.currentUser?.providers == user.providers)
    }

    @Test("a link whose account read fails stands, with the link's tokens")
    func linkStandsWhenTheReadFails() throws {
        let (auth, engine, _) = try signedIn()
        let done = Completion<Result<AuthUser, StorageError>>()
        try auth.link(with: AuthCredential.email("a@example.com", password: "secret-1"), completion: { done.complete($0) })
        let linked = idToken("u1", serial: 1)
        try engine.respond(200, body: Array(#"{"idToken":"\#(linked)","refreshToken":"r2","localId":"u1","email":"a@example.com"}"#.utf8))
        try engine.respond(400, body: Array(#"{"error":{"code":400,"message":"TOO_MANY_ATTEMPTS_TRY_LATER"}}"#.utf8))
        let user = try done.wait().get()
        #expect(user.idToken == linked && user.email == "a@example.com" && user.providers.isEmpty)
        #expect(auth.currentUser == user)
    }

    @Test("an account call answered with a session-ending error signs the user out before it fails with that error")
    func sessionEndingAnswersSignOut() throws {
        let refusal = { (message: String) in #"{"error":{"code":400,"message":"\#(message)"}}"# }
        let linked = #"{"idToken":"\#(idToken("u1", serial: 1))","refreshToken":"r2","localId":"u1"}"#
        let link: AccountCall = { try $0.link(with: AuthCredential.email("a@example.com", password: "secret-1"), completion: $1) }
        let update: AccountCall = { try $0.updateProfile(displayName: .set("n"), photoURL: .unchanged, completion: $1) }
        for (message, code) in [("USER_NOT_FOUND", StorageErrorCode.authUserNotFound), ("USER_DISABLED", .authUserDisabled),
                                ("TOKEN_EXPIRED", .authUserTokenExpired), ("INVALID_ID_TOKEN", .authInvalidUserToken)] {
            // A link whose account read finds the session over, and a profile update answered so
            for (auth, result, _) in [try answered([(200, linked), (400, refusal(message))], link),
                                      try answered([(400, refusal(message))], update)] {
                if case .failure(let error) = result { #expect(error.code == code) } else { Issue.record("\(message): no error") }
                #expect(auth.currentUser == nil)
            }
        }
        // An error that ends no session leaves the user signed in.
        let (auth, result, token) = try answered([(400, refusal("TOO_MANY_ATTEMPTS_TRY_LATER"))], update)
        if case .failure(let error) = result { #expect(error.code == .authTooManyRequests) } else { Issue.record("no error") }
        #expect(auth.currentUser?.idToken == token)
    }

    @Test("a link answered after a sign-out fails with authNoUser and does not sign the user in again")
    func signOutDuringLink() throws {
        let (auth, engine, _) = try signedIn()
        let done = Completion<Result<AuthUser, StorageError>>()
        try auth.link(with: AuthCredential.email("a@example.com", password: "secret-1"), completion: { done.complete($0) })
        auth.signOut()
        try engine.respond(200, body: Array(#"{"idToken":"\#(idToken("u1", serial: 1))","refreshToken":"r2","localId":"u1"}"#.utf8))
        #expect(throws: StorageError.self) { try done.wait().get() }
        if case .failure(let error) = done.wait() { #expect(error.code == .authNoUser) }
        #expect(auth.currentUser == nil)
    }

    @Test("linking a provider the ID token lists is refused before anything is sent")
    func providerAlreadyLinked() throws {
        let (auth, engine, _) = try signedIn(identities: #"{"google.com":["g-1"]}"#)
        let google = try AuthCredential.identityProvider("google.com", idToken: "fake", accessToken: nil)
        let before = engine.started
        #expect { try auth.link(with: google, completion: { _ in }) } throws: { ($0 as? StorageError)?.code == .authProviderAlreadyLinked }
        #expect(engine.started == before)
    }

    @Test("linking a sign-in method the account has is refused before sending; once unlinked it is sent, though the ID token still names it")
    func linkAfterUnlink() throws {
        let (auth, engine, _) = try signedIn(provider: "password", account: #""localId":"u1","email":"a@example.com","createdAt":"1700000000000","providerUserInfo":[{"providerId":"password","rawId":"a@example.com"}]"#)
        let another = try AuthCredential.email("b@example.com", password: "secret-2")
        let before = engine.started
        #expect { try auth.link(with: another, completion: { _ in }) } throws: { ($0 as? StorageError)?.code == .authProviderAlreadyLinked }
        #expect(engine.started == before)

        let unlinked = Completion<Result<AuthUser, StorageError>>()
        try auth.unlink(providerID: "password") { unlinked.complete($0) }
        try engine.respond(200, body: Array(#"{"localId":"u1","email":"a@example.com","providerUserInfo":[]}"#.utf8))
        let refreshed = idToken("u1", serial: 1, provider: "password")   // a refresh keeps the session's provider
        try engine.respond(200, body: Array(#"{"id_token":"\#(refreshed)","refresh_token":"r1","user_id":"u1","expires_in":"3600"}"#.utf8))
        #expect(try unlinked.wait().get().providers.isEmpty)
        try auth.link(with: another, completion: { _ in })
        #expect(try engine.oldest.request.url.hasSuffix("/v1/accounts:signUp?key=key"))
    }

    @Test("reauthenticating with another user's credential fails with authUserMismatch; the user stays")
    func reauthenticateMismatch() throws {
        let (auth, engine, token) = try signedIn()
        let done = Completion<Result<AuthUser, StorageError>>()
        try auth.reauthenticate(with: AuthCredential.email("b@example.com", password: "secret-2"), completion: { done.complete($0) })
        #expect(try engine.oldest.request.url.hasSuffix("/v1/accounts:signInWithPassword?key=key"))
        try engine.respond(200, body: Array(#"{"idToken":"\#(idToken("u2"))","refreshToken":"r9","localId":"u2"}"#.utf8))
        if case .failure(let error) = done.wait() { #expect(error.code == .authUserMismatch) } else { Issue.record("no error") }
        #expect(auth.currentUser?.idToken == token)
    }

    @Test("reauthenticating with a provider's credential asks for no new account (autoCreate false); a password's sends no such field")
    func reauthenticateCreatesNoAccount() throws {
        let (auth, engine, token) = try signedIn()
        let google = try AuthCredential.identityProvider("google.com", idToken: "fake", accessToken: nil)
        let done = Completion<Result<AuthUser, StorageError>>()
        try auth.reauthenticate(with: google, completion: { done.complete($0) })
        let request = try engine.oldest
        #expect(request.request.url.hasSuffix("/v1/accounts:signInWithIdp?key=key"))
        let sent = try body(request)
        #expect(sent["autoCreate"] == .bool(false) && sent["idToken"] == nil)
        try engine.respond(400, body: Array(#"{"error":{"code":400,"message":"USER_NOT_FOUND"}}"#.utf8))
        if case .failure(let error) = done.wait() { #expect(error.code == .authUserNotFound) } else { Issue.record("no error") }
        #expect(auth.currentUser?.idToken == token)

        let again = Completion<Result<AuthUser, StorageError>>()
        try auth.reauthenticate(with: AuthCredential.email("a@example.com", password: "secret-1"), completion: { again.complete($0) })
        #expect(try body(engine.oldest)["autoCreate"] == nil)
        try engine.respond(400, body: Array(#"{"error":{"code":400,"message":"INVALID_PASSWORD"}}"#.utf8))
        _ = again.wait()
    }

    @Test("an identity provider's tokens go in postBody, escaped; descriptions show only the provider")
    func identityProviderRequest() throws {
        let credential = try AuthCredential.identityProvider("github.com", idToken: nil, accessToken: "a&b=c")
        let (method, fields) = credential.request
        #expect(method == "signInWithIdp")
        #expect(fields.first { $0.0 == "postBody" }?.1.stringValue == "providerId=github.com&access_token=a%26b%3Dc")
        #expect("\(credential)" == "AuthCredential(github.com)")
        #expect("\(try AuthCredential.email("a@example.com", password: "secret-1"))" == "AuthCredential(password)")
        #expect(throws: StorageError.self) { try AuthCredential.identityProvider("github.com", idToken: nil, accessToken: nil) }
        #expect(throws: StorageError.self) { try AuthCredential.identityProvider("password", idToken: "t", accessToken: nil) }
    }
}
