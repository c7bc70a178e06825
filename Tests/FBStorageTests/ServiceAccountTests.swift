@testable import FBStorage
import Glibc
import Testing

/// The service account's token state machine on a fake engine (virtual time): one exchange serves
/// every request that needs it, a fresh token costs none, and one near its end is renewed first.
@Suite struct ServiceAccountTests {
    /// A key with a fresh RSA private key (the openssl CLI: nothing committed).
    private func key() throws -> ServiceAccountKey {
        let pipe = try #require(popen("openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 2>/dev/null", "r"))
        var pem: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = fread(&buffer, 1, buffer.count, pipe)
            if n == 0 { break }
            pem += buffer[0..<n]
        }
        pclose(pipe)
        var json: [UInt8] = []
        JSONValue.writeObject([("type", .string("service_account")), ("client_email", .string("sa@p.iam.gserviceaccount.com")),
                               ("private_key", .string(String(decoding: pem, as: UTF8.self))),
                               ("token_uri", .string("http://127.0.0.1:9/token"))], into: &json)
        return try ServiceAccountKey(json: json)
    }

    private func answer(_ token: String, expiresIn: Int = 3600) -> [UInt8] {
        Array(#"{"access_token":"\#(token)","expires_in":\#(expiresIn),"token_type":"Bearer"}"#.utf8)
    }

    @Test("three requests share one exchange; then the token answers at once, until it is near its end")
    func oneExchangeForManyAndRenewalBeforeExpiry() throws {
        let engine = FakeEngine()
        let credentials = try ServiceAccountCredentials(key: key(), engine: engine)
        let answers = Locked<[String?]>([])
        for _ in 0..<3 { credentials.token(rejected: nil) { result in answers.withLock { $0.append(try? result.get()) } } }
        #expect(engine.inFlight.count == 1 && answers.withLock { $0 }.isEmpty)
        let exchange = try engine.oldest.request
        #expect(exchange.method == "POST" && exchange.url == "http://127.0.0.1:9/token")
        try engine.respond(200, body: answer("ya29.one"))
        #expect(answers.withLock { $0 } == ["ya29.one", "ya29.one", "ya29.one"])
        credentials.token(rejected: nil) { result in answers.withLock { $0.append(try? result.get()) } }
        #expect(engine.started == 1 && answers.withLock { $0.last } == "ya29.one")
        engine.advance(by: 3600 - ServiceAccountCredentials.renewalMargin + 1)
        credentials.token(rejected: nil) { result in answers.withLock { $0.append(try? result.get()) } }
        #expect(engine.started == 2)
        try engine.respond(200, body: answer("ya29.two"))
        #expect(answers.withLock { $0.last } == "ya29.two")
        credentials.token(rejected: "ya29.two") { result in answers.withLock { $0.append(try? result.get()) } }
        #expect(engine.started == 3)   // a 401 asks for a new one
    }

    @Test("the endpoint's refusals are clear codes and quote no secret")
    func refusals() throws {
        let engine = FakeEngine()
        let credentials = try ServiceAccountCredentials(key: key(), engine: engine)
        let cases: [(Int, String, StorageErrorCode)] = [
            (400, #"{"error":"invalid_grant","error_description":"Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe. Check your iat and exp values in the JWT claim."}"#, .credentialClockSkew),
            (400, #"{"error":"invalid_grant","error_description":"Invalid JWT Signature."}"#, .credentialRejected),
            (401, #"{"error":"invalid_client","error_description":"The OAuth client was not found."}"#, .credentialRejected),
            (400, #"{"error":"invalid_scope"}"#, .unknown),
        ]
        for (status, refusal, code) in cases {
            let result = Locked<Result<String?, StorageError>?>(nil)
            credentials.token(rejected: nil) { outcome in result.withLock { $0 = outcome } }
            let assertion = String(decoding: try engine.oldest.bodyBytes, as: UTF8.self)
            try engine.respond(status, body: Array(refusal.utf8))
            let error = try #require(result.withLock { $0 }.flatMap { if case .failure(let e) = $0 { e } else { nil } })
            #expect(error.code == code)
            let jwt = String(assertion.split(separator: "=").last ?? "")
            #expect(!error.message.contains(jwt) && !(error.serverResponse ?? "").contains(jwt))
        }
    }

    @Test("a storage sends the access token as Bearer")
    func storageSendsBearer() throws {
        let engine = FakeEngine()
        let credentials = try ServiceAccountCredentials(key: key(), engine: engine)
        let storageEngine = FakeEngine()
        let storage = try Storage(bucket: "b", engine: storageEngine)
        defer { storage.close() }
        storage.use(tokenSource: credentials)
        try storage.reference("a").startGetMetadata { _ in }
        try engine.respond(200, body: answer("ya29.bearer"))
        #expect(try storageEngine.oldest.header("Authorization") == "Bearer ya29.bearer")
    }
}
