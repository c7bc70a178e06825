@testable import FBStorage
import Testing

/// App Check on fake engines (no threads, no clock of their own): a token's lifetime, one
/// exchange serving every request that needs it, and each refusal with its code.
@Suite struct AppCheckTests {
    private let refusal = Array(#"{"error": {"code": 401, "message": "Firebase App Check token is invalid."}}"#.utf8)

    private func exchanged(_ token: String, ttl: String = "3600s") -> [UInt8] {
        Array(#"{"token": "\#(token)", "ttl": "\#(ttl)"}"#.utf8)
    }

    private func setUp() throws -> (AppCheck, FakeEngine, Storage, FakeEngine) {
        let appCheckEngine = FakeEngine()
        let appCheck = try AppCheck(projectID: "p", appID: "1:2:web:3", apiKey: nil, engine: appCheckEngine)
        try appCheck.useEmulator(host: "127.0.0.1", port: 9199)
        appCheck.setProvider(try AppCheckDebugProvider(secret: "s3cret"))
        let storageEngine = FakeEngine()
        let storage = try Storage(bucket: "b", engine: storageEngine)
        try storage.useEmulator(host: "127.0.0.1", port: 9199)
        storage.use(appCheck: appCheck)
        return (appCheck, appCheckEngine, storage, storageEngine)
    }

    @Test("a token's lifetime comes from the exchange's ttl; it is renewed with min(5 minutes, half its life) left")
    func lifetime() throws {
        let token = try #require(AppCheckToken(token: "t", ttl: "3600s", now: 1000))
        #expect(token.expiresAt == 4600)
        #expect(token.isFresh(at: 4299) && !token.isFresh(at: 4301))
        let short = try #require(AppCheckToken(token: "t", ttl: "3.5s", now: 1000))
        #expect(short.isFresh(at: 1001.7) && !short.isFresh(at: 1001.8))
        for bad in ["3600", "s", "-1s", "abc", ""] { #expect(AppCheckToken(token: "t", ttl: bad) == nil, "\(bad)") }
    }

    @Test("three requests refused for their App Check token wait for one exchange, then retry with the new token")
    func refusalsShareOneExchange() throws {
        let (_, appCheckEngine, storage, storageEngine) = try setUp()
        defer { storage.close() }
        let results = Locked<[Result<StorageMetadata, StorageError>]>([])
        for name in ["a", "b", "c"] {
            try storage.reference(name).startGetMetadata { outcome in results.withLock { $0.append(outcome) } }
        }
        #expect(appCheckEngine.inFlight.count == 1)   // the three wait for one exchange
        let exchange = try appCheckEngine.oldest.request
        #expect(exchange.url == "http://127.0.0.1:9199/firebaseappcheck.googleapis.com/v1/projects/p/apps/1:2:web:3:exchangeDebugToken")
        try appCheckEngine.respond(200, body: exchanged("first"))
        storageEngine.runPosted()
        #expect(try storageEngine.inFlight.allSatisfy { try $0.header("X-Firebase-AppCheck") == "first" })
        for _ in 0..<3 { try storageEngine.respond(401, body: refusal) }
        #expect(appCheckEngine.inFlight.count == 1)   // one renewal for the three refusals
        try appCheckEngine.respond(200, body: exchanged("second"))
        storageEngine.runPosted()
        #expect(storageEngine.inFlight.count == 3)
        #expect(try storageEngine.inFlight.allSatisfy { try $0.header("X-Firebase-AppCheck") == "second" })
        for _ in 0..<3 { try storageEngine.respond(200, body: Array(#"{"name": "x", "bucket": "b"}"#.utf8)) }
        #expect(results.withLock { $0.count } == 3)
        #expect(results.withLock { $0.allSatisfy { (try? $0.get()) != nil } })
    }

    @Test("refused again after a fresh token: appCheckTokenInvalid, without the token in the message")
    func refusedTwice() throws {
        let (_, appCheckEngine, storage, storageEngine) = try setUp()
        defer { storage.close() }
        let result = Locked<Result<StorageMetadata, StorageError>?>(nil)
        try storage.reference("a").startGetMetadata { outcome in result.withLock { $0 = outcome } }
        try appCheckEngine.respond(200, body: exchanged("tok-1"))
        storageEngine.runPosted()
        try storageEngine.respond(401, body: refusal)
        try appCheckEngine.respond(200, body: exchanged("tok-2"))
        storageEngine.runPosted()
        try storageEngine.respond(401, body: refusal)
        #expect(storageEngine.started == 2)   // one retry, no more
        let error = try #require(result.withLock { $0 }.flatMap { outcome -> StorageError? in
            if case .failure(let error) = outcome { error } else { nil }
        })
        #expect(error.code == .appCheckTokenInvalid && error.httpStatus == 401)
        #expect(!error.message.contains("tok-2") && !error.description.contains("tok-1"))
    }

    @Test("a custom provider that never answers fails the waiting request after answerTimeout; a late answer is refused")
    func silentProviderTimesOut() throws {
        let engine = FakeEngine()
        let appCheck = try AppCheck(projectID: "p", appID: "1:2:web:3", apiKey: nil, engine: engine)
        let asked = Completion<AppCheckTokenRequest>()
        appCheck.setProvider(AppCheckCustomProvider { _, request in asked.complete(request) })
        let answer = Locked<Result<String?, StorageError>?>(nil)
        appCheck.appCheckToken(rejected: nil) { result in answer.withLock { $0 = result } }
        #expect(answer.withLock { $0 } == nil)
        engine.advance(by: AppCheckCustomProvider.answerTimeout - 1)
        #expect(answer.withLock { $0 } == nil)
        engine.advance(by: 2)
        let error = try #require(answer.withLock { $0 }.flatMap { result -> StorageError? in
            if case .failure(let error) = result { error } else { nil }
        })
        #expect(error.code == .appCheckProviderFailed && error.message.contains("did not answer"))
        // The provider ran on the callback thread meanwhile; its late answer is refused.
        let late = asked.wait()
        #expect(throws: StorageError.self) { try late.complete(token: "late", expiresAt: IDToken.now() + 60) }
    }

    @Test("no App Check: App Check's 401 is appCheckTokenMissing at once; a user's 401 stays unauthenticated")
    func missingAndUserRefusals() throws {
        let engine = FakeEngine()
        let storage = try Storage(bucket: "b", engine: engine)
        defer { storage.close() }
        try storage.useEmulator(host: "127.0.0.1", port: 9199)
        let results = Locked<[StorageErrorCode]>([])
        for _ in 0..<2 {
            try storage.reference("a").startGetMetadata { outcome in
                if case .failure(let error) = outcome { results.withLock { $0.append(error.code) } }
            }
        }
        try engine.respond(401, body: refusal)
        try engine.respond(401, body: Array(#"{"error": {"code": 401, "message": "Unauthorized"}}"#.utf8))
        #expect(engine.started == 2)
        #expect(results.withLock { $0 } == [.appCheckTokenMissing, .unauthenticated])
    }

    @Test("auto-refresh renews halfway through the token's life, retries failures with backoff, and stops when turned off")
    func autoRefresh() throws {
        let engine = FakeEngine()
        let appCheck = try AppCheck(projectID: "p", appID: "1:2:web:3", apiKey: nil, engine: engine)
        try appCheck.useEmulator(host: "127.0.0.1", port: 9199)
        appCheck.setProvider(try AppCheckDebugProvider(secret: "s3cret"))
        #expect(!appCheck.isTokenAutoRefreshEnabled)
        appCheck.isTokenAutoRefreshEnabled = true
        #expect(engine.nextTimerDelay == nil)   // the first token is a request's
        let answers = Locked<[String?]>([])
        let ask = { appCheck.appCheckToken(rejected: nil) { result in answers.withLock { $0.append(try? result.get()) } } }
        ask()
        try engine.respond(200, body: exchanged("first"))
        let halfway = try #require(engine.nextTimerDelay)
        #expect(abs(halfway - 1800) < 1)

        engine.advance(by: halfway)
        #expect(engine.inFlight.count == 1)      // renewed before any request needs it
        let refused = Array(#"{"error": {"code": 403, "message": "App attestation failed."}}"#.utf8)
        try engine.respond(403, body: refused)
        for backoff in [1.0, 2.0, 4.0] {            // failed renewals are retried, backing off
            #expect(engine.nextTimerDelay == backoff)
            engine.advance(by: backoff)
            try engine.respond(403, body: refused)
        }
        #expect(engine.nextTimerDelay == 8)
        engine.advance(by: 8)
        try engine.respond(200, body: exchanged("second", ttl: "600s"))
        #expect(abs(try #require(engine.nextTimerDelay) - 300) < 1)
        ask()                                       // answered at once from the renewed token
        #expect(answers.withLock { $0 } == ["first", "second"])

        appCheck.isTokenAutoRefreshEnabled = false
        #expect(engine.nextTimerDelay == nil)
        appCheck.isTokenAutoRefreshEnabled = true
        #expect(engine.nextTimerDelay != nil)
        appCheck.setProvider(MintedAppCheckProvider(AppCheckToken(token: "minted", expiresAt: IDToken.now() + 3600)))
        #expect(engine.nextTimerDelay == nil)    // a minted token has nothing to be renewed from
    }
}
