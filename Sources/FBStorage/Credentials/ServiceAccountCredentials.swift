/// A service account as a storage's token source: OAuth2 access tokens, sent as
/// `Authorization: Bearer`, obtained with the JWT-bearer grant (RFC 7523) from the key's
/// `token_uri` and kept until shortly before they expire. Requests with a fresh token never
/// wait; concurrent requests needing a new one share one exchange.
///
/// Exchanges run on the credentials' own transfer thread, through the same attempt loop as every
/// request (transport failures, 429 and 5xx retried until the operation deadline).
public final class ServiceAccountCredentials: RequestHost, AuthTokenSource, @unchecked Sendable {
    public let key: ServiceAccountKey
    private let threads: ServiceThreads
    var engine: any TransferEngine { threads.engine }
    var callbackQueue: CallbackQueue { threads.callbackQueue }
    /// The exchange carries its assertion in its body, no `Authorization`.
    var credentials: AuthTokens { AuthTokens() }
    public var canRefresh: Bool { true }
    public var scheme: AuthScheme { .bearer }

    /// `https://www.googleapis.com/auth/cloud-platform`, as Google's client libraries ask.
    public static let defaultScopes = ["https://www.googleapis.com/auth/cloud-platform"]
    /// A token is renewed when less than this is left of it (seconds).
    static let renewalMargin = 300.0
    /// The assertion's lifetime: Google accepts at most an hour.
    static let assertionLifetime = 3600

    private struct State {
        var scopes = ServiceAccountCredentials.defaultScopes
        var token: String?
        /// When the token expires, on the engine's monotonic clock.
        var expiry = 0.0
        /// Counts scope changes: a token asked for other scopes is not kept.
        var generation = 0
        var renewal = RenewalInFlight<String?>()
    }

    private let lock = ConditionLock()
    private var state = State()
    private let work = WorkRegistry(owner: "service account")

    public convenience init(key: ServiceAccountKey) throws(StorageError) {
        try self.init(key: key, engine: HTTPEngine(name: "fbstorage-oauth"))
    }

    init(key: ServiceAccountKey, engine: @autoclosure () throws(StorageError) -> any TransferEngine) throws(StorageError) {
        self.key = key
        threads = try ServiceThreads(engine: engine(), callbacks: "fbstorage-oauth-callbacks")
    }

    /// The OAuth2 scopes asked for; changing them drops the current token.
    /// - Throws: `invalidArgument` for an empty list, or a scope that is empty or holds a space
    ///   or a control character.
    public func setScopes(_ scopes: [String]) throws(StorageError) {
        guard !scopes.isEmpty else { throw .invalidArgument("The scope list is empty") }
        for scope in scopes {
            guard !scope.isEmpty, !scope.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value == 0x7F }) else {
                throw .invalidArgument("A scope is empty or holds a space or a control character")
            }
        }
        lock.withLock {
            state.scopes = scopes
            state.token = nil
            state.generation += 1
        }
    }

    public var scopes: [String] { lock.withLock { state.scopes } }

    /// A current access token, exchanged first when there is none fresh or `forceRefresh`.
    public func accessToken(forceRefresh: Bool) throws(StorageError) -> String {
        try runBlocking { done throws(StorageError) in startAccessToken(forceRefresh, done) }
    }

    public func accessToken(forceRefresh: Bool, completion: @escaping StorageCompletion<String>) throws(StorageError) {
        try runAsync({ done throws(StorageError) in startAccessToken(forceRefresh, done) }, completion: completion)
    }

    private func startAccessToken(_ forceRefresh: Bool, _ done: @escaping StorageCompletion<String>) {
        let current = lock.withLock { state.token }
        token(rejected: forceRefresh ? (current ?? "") : nil) { result in
            done(result.flatMap { token in
                token.map { .success($0) } ?? .failure(StorageError(code: .internalError, message: "The token exchange gave no token"))
            })
        }
    }

    // MARK: AuthTokenSource

    public func token(rejected: String?, completion: @escaping @Sendable (Result<String?, StorageError>) -> Void) {
        enum Step { case answer(String), wait, exchange(scopes: [String], generation: Int) }
        let now = engine.now()
        let step = lock.withLock { () -> Step in
            if let token = state.token, token != rejected, now < state.expiry - Self.renewalMargin { return .answer(token) }
            guard state.renewal.join(completion) else { return .wait }
            return .exchange(scopes: state.scopes, generation: state.generation)
        }
        switch step {
        case .answer(let token): completion(.success(token))
        case .wait: break
        case .exchange(let scopes, let generation):
            do throws(StorageError) {
                try startExchange(scopes: scopes) { [self] result in finishExchange(result, generation: generation) }
            } catch {
                finishExchange(.failure(error), generation: generation)
            }
        }
    }

    private func finishExchange(_ result: Result<(token: String, expiresIn: Double), StorageError>, generation: Int) {
        let now = engine.now()
        let waiters = lock.withLock {
            if case .success(let answer) = result, generation == state.generation {
                state.token = answer.token
                state.expiry = now + answer.expiresIn
            }
            return state.renewal.end()
        }
        waiters.answer(result.map { Optional($0.token) })
    }

    // MARK: The exchange

    /// The signed JWT the token endpoint exchanges: `iss` the service account, `aud` Google's
    /// token endpoint whatever `token_uri` is, `scope`, `iat` now and `exp` an hour later (the
    /// claims google-auth sends).
    func assertion(scopes: [String], issuedAt: Int64) throws(StorageError) -> String {
        var header: [UInt8] = []
        var headerFields: [(String, JSONValue)] = [("alg", .string("RS256")), ("typ", .string("JWT"))]
        if let keyID = key.privateKeyID { headerFields.append(("kid", .string(keyID))) }
        JSONValue.writeObject(headerFields, into: &header)
        var claims: [UInt8] = []
        JSONValue.writeObject([
            ("iss", .string(key.clientEmail)),
            ("scope", .string(scopes.joined(separator: " "))),
            ("aud", .string(ServiceAccountKey.defaultTokenURI)),
            ("iat", .number(issuedAt)),
            ("exp", .number(issuedAt + Int64(Self.assertionLifetime))),
        ], into: &claims)
        let signingInput = Base64URL.encode(header) + "." + Base64URL.encode(claims)
        return signingInput + "." + Base64URL.encode(try key.privateKey.sign(Array(signingInput.utf8)))
    }

    private func startExchange(scopes: [String],
                               _ done: @escaping StorageCompletion<(token: String, expiresIn: Double)>) throws(StorageError) {
        let assertion = try assertion(scopes: scopes, issuedAt: Int64(IDToken.now()))
        let body = Array(("grant_type=" + PercentEscaping.queryValue("urn:ietf:params:oauth:grant-type:jwt-bearer")
                          + "&assertion=" + assertion).utf8)
        guard let endpoint = TokenEndpoint(key.tokenURI)?.endpoint else {
            throw StorageError(code: .credentialInvalid, message: "The key's token_uri is not an http(s) URL")
        }
        var settings = StorageSettings()
        settings.endpoint = endpoint
        let hooks = RetryingRequest.Hooks.serviceCall { response in OAuthErrors.error(status: response.status, body: response.body) }
        let request = HTTPRequest(method: "POST", url: key.tokenURI,
                                  headers: [(name: "Content-Type", value: "application/x-www-form-urlencoded")], body: BytesBody(body))
        try RetryingRequest(
            host: self, subject: .service("OAuth2 token exchange for \(key.clientEmail)"), settings: settings,
            retryTime: settings.maxOperationRetryTime, options: .init(authenticated: false), hooks: hooks,
            build: { _, _ in request },
            completion: { result in
                done(result.flatMap { response in
                    let answer = JSONValue.parse(response.body)
                    guard let token = answer?["access_token"]?.stringValue, !token.isEmpty,
                          (try? HeaderValue.check(token, field: "The access token")) != nil else {
                        return .failure(StorageError(code: .unknown, message: "The token endpoint's answer holds no access token",
                                                     httpStatus: response.status))
                    }
                    let expiresIn = answer?["expires_in"]?.int64Value.map(Double.init) ?? 3600
                    return .success((token, expiresIn))
                })
            }).start()
    }

    // MARK: RequestHost

    func register(_ work: any StorageWork) throws(StorageError) { try self.work.register(work) }

    func unregister(_ work: any StorageWork) { self.work.unregister(work) }
}

/// The OAuth2 token endpoint's errors (RFC 6749 §5.2: `error`, `error_description`) as codes.
enum OAuthErrors {
    static func error(status: Int, body: [UInt8]) -> StorageError {
        let answer = JSONValue.parse(body)
        let error = answer?["error"]?.stringValue ?? ""
        let description = answer?["error_description"]?.stringValue ?? ""
        let said = description.isEmpty ? error : "\(error): \(description)"
        let code: StorageErrorCode
        let advice: String
        if description.contains("timeframe") || description.contains("iat and exp") {
            code = .credentialClockSkew
            advice = "the token endpoint refused the assertion's times: check this machine's clock (NTP)"
        } else if status == 401 || ["invalid_grant", "invalid_client", "unauthorized_client"].contains(error) {
            code = .credentialRejected
            advice = "the token endpoint refused the service account (a deleted or disabled key, or another project's)"
        } else {
            code = .unknown
            advice = "the token endpoint answered HTTP \(status)"
        }
        return StorageError(code: code, message: "OAuth2 token exchange: \(advice)\(said.isEmpty ? "" : " (\(said))")",
                            httpStatus: status, serverResponse: StorageError.serverResponse(body))
    }
}
