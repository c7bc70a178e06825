@testable import FBStorage
import Testing

/// The auth's token sharing, driven on fake engines (no threads, no clock of their own): one
/// refresh serves every request that needs it, and a fresh token costs no request.
@Suite struct AuthRefreshTests {
    /// An unsigned ID token for `uid`, issued now and living `lifetime` seconds.
    private func idToken(_ uid: String, lifetime: Double = 3600, serial: Int = 0) -> String {
        let now = Int(IDToken.now())
        let payload = #"{"user_id":"\#(uid)","sub":"\#(uid)","aud":"p","iat":\#(now),"exp":\#(now + Int(lifetime)),"n":\#(serial),"firebase":{"sign_in_provider":"anonymous"}}"#
        return "eyJhbGciOiJub25lIn0.\(base64URL(Array(payload.utf8)))."
    }

    private func base64URL(_ bytes: [UInt8]) -> String {
        String(Base64.encode(bytes).compactMap { $0 == "=" ? nil : $0 == "+" ? "-" : $0 == "/" ? "_" : $0 })
    }

    private func signedIn() throws -> (Auth, FakeEngine, String) {
        let engine = FakeEngine()
        let auth = try Auth(apiKey: "key", projectID: "p", engine: engine)
        let done = Completion<Result<AuthUser, StorageError>>()
        try auth.signInAnonymously { done.complete($0) }
        #expect(try engine.oldest.request.url.hasSuffix("/v1/accounts:signUp?key=key"))
        let token = idToken("u1")
        try engine.respond(200, body: Array(#"{"idToken":"\#(token)","refreshToken":"r1","localId":"u1","expiresIn":"3600"}"#.utf8))
        try engine.respondToAccountRead(idToken: token, account: #""localId":"u1""#)
        #expect(try done.wait().get().uid == "u1")
        return (auth, engine, token)
    }

    @Test("a fresh token answers at once, with no request; signed out, none is sent")
    func freshTokenCostsNothing() throws {
        let (auth, engine, token) = try signedIn()
        let answer = Locked<String??>(nil)
        auth.token(rejected: nil) { result in answer.withLock { $0 = try? result.get() } }
        #expect(answer.withLock { $0 } == .some(.some(token)))
        #expect(engine.started == 2)   // the sign-in and its account read alone
        auth.signOut()
        auth.token(rejected: nil) { result in answer.withLock { $0 = try? result.get() } }
        #expect(answer.withLock { $0 } == .some(.none))
    }

    @Test("three requests refused with 401 wait for one refresh, then all retry with the new token")
    func concurrentRejectionsShareOneRefresh() throws {
        let (auth, authEngine, first) = try signedIn()
        let storageEngine = FakeEngine()
        let storage = try Storage(bucket: "b", engine: storageEngine)
        defer { storage.close() }
        storage.use(tokenSource: auth)
        let results = Locked<[Result<StorageMetadata, StorageError>]>([])
        for name in ["a", "b", "c"] {
            try storage.reference(name).startGetMetadata { outcome in results.withLock { $0.append(outcome) } }
        }
        #expect(storageEngine.inFlight.count == 3)
        #expect(try storageEngine.inFlight.allSatisfy { try $0.header("Authorization") == "Firebase \(first)" })
        for _ in 0..<3 { try storageEngine.respond(401) }
        #expect(authEngine.inFlight.count == 1)   // one refresh for the three
        let refresh = try authEngine.oldest.request
        #expect(refresh.url.hasSuffix("/v1/token?key=key"))
        let second = idToken("u1", serial: 1)
        try authEngine.respond(200, body: Array(#"{"id_token":"\#(second)","refresh_token":"r2","user_id":"u1","expires_in":"3600"}"#.utf8))
        #expect(storageEngine.inFlight.count == 3)
        #expect(try storageEngine.inFlight.allSatisfy { try $0.header("Authorization") == "Firebase \(second)" })
        #expect(authEngine.started == 3)   // sign-in, its account read and the one refresh
        #expect(auth.currentUser?.refreshToken == "r2")
    }

    @Test("a token near its end is renewed before it is sent; a disabled user ends the session with that error")
    func renewalAndDisabledUser() throws {
        let engine = FakeEngine()
        let auth = try Auth(apiKey: "key", projectID: "p", engine: engine)
        let done = Completion<Result<AuthUser, StorageError>>()
        try auth.signInAnonymously { done.complete($0) }
        // 12 s of life: renewed in its last second (a twelfth), so a 0.5 s-old token is fresh
        // and one past 11 s is not; this one was issued 11.5 s ago.
        let now = Int(IDToken.now())
        let payload = #"{"user_id":"u1","iat":\#(now - 11),"exp":\#(now + 1)}"#
        let aging = "eyJhbGciOiJub25lIn0.\(base64URL(Array(payload.utf8)))."
        try engine.respond(200, body: Array(#"{"idToken":"\#(aging)","refreshToken":"r1","localId":"u1"}"#.utf8))
        try engine.respondToAccountRead(idToken: aging, account: #""localId":"u1""#)
        _ = try done.wait().get()
        let answer = Locked<Result<String?, StorageError>?>(nil)
        auth.token(rejected: nil) { result in answer.withLock { $0 = result } }
        #expect(answer.withLock { $0 } == nil)   // waiting for the renewal
        try engine.respond(400, body: Array(#"{"error":{"code":400,"message":"USER_DISABLED","status":"INVALID_ARGUMENT"}}"#.utf8))
        let error = try #require(answer.withLock { $0 }.flatMap { if case .failure(let e) = $0 { e } else { nil } })
        #expect(error.code == .authUserDisabled)
        #expect(!error.message.contains("r1"))
        #expect(auth.currentUser == nil)
    }
}
