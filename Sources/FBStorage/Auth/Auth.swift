#if canImport(Glibc)
import Glibc
#endif

/// Firebase Auth for one app (API key, project id): signs in through Identity Toolkit and keeps
/// the user's ID token fresh through Secure Token. Storages use it as their `AuthTokenSource`
/// (`Storage.use(tokenSource:)`), any number of them.
///
/// Requests run on the auth's own transfer thread; listeners and the asynchronous forms'
/// completions on its callback thread. A refresh is shared by every request that needs it, and
/// requests whose token is fresh never wait for one.
public final class Auth: RequestHost, AuthTokenSource, @unchecked Sendable {
    public let apiKey: String
    private let threads: ServiceThreads
    var engine: any TransferEngine { threads.engine }
    var callbackQueue: CallbackQueue { threads.callbackQueue }
    /// Auth's own requests carry no user token: the API key is in their URL.
    var credentials: AuthTokens { AuthTokens() }
    public var canRefresh: Bool { true }

    /// What listeners hear about.
    public enum ListenerKind: Sendable {
        /// Sign-in, sign-out, a restored session.
        case state
        /// The same, and every new ID token.
        case idToken
    }

    private struct Listener {
        let kind: ListenerKind
        let callback: @Sendable (AuthUser?) -> Void
    }

    private struct State {
        var projectID: String?
        var endpoints = AuthEndpoints()
        var user: AuthUser?
        /// Counts changes of user, so that a refresh finishing after a sign-out or another
        /// sign-in does not bring the old user back.
        var generation = 0
        var refresh = RenewalInFlight<String?>()
        var persistence: AuthPersistence?
    }

    private let lock = ConditionLock()
    private var state = State()
    private let listeners: ListenerRegistry<Listener>
    /// Requests in flight; an auth is never closed (it lives while a handle or a storage holds it).
    private let work = WorkRegistry(owner: "auth")

    /// Creates an auth for the app with this Web API key. Honours
    /// `FIREBASE_AUTH_EMULATOR_HOST=host:port` as the Firebase SDKs do.
    /// - Throws: `invalidArgument` for an empty key or a malformed `FIREBASE_AUTH_EMULATOR_HOST`.
    public convenience init(apiKey: String, projectID: String? = nil) throws(StorageError) {
        try self.init(apiKey: apiKey, projectID: projectID, engine: HTTPEngine(name: "fbstorage-auth"))
    }

    /// An auth whose requests go through `engine` (tests pass a fake one).
    init(apiKey: String, projectID: String?, engine: @autoclosure () throws(StorageError) -> any TransferEngine) throws(StorageError) {
        guard !apiKey.isEmpty else { throw .invalidArgument("The API key is empty") }
        try HeaderValue.check(apiKey, field: "The API key")
        self.apiKey = apiKey
        state.projectID = projectID
        state.endpoints.emulator = try Endpoint.emulator(environment: "FIREBASE_AUTH_EMULATOR_HOST",
                                                         defaultPort: AuthEndpoints.defaultEmulatorPort)
        threads = try ServiceThreads(engine: engine(), callbacks: "fbstorage-auth-callbacks")
        listeners = ListenerRegistry(lock: lock, callbackQueue: threads.callbackQueue)
    }

    /// The project id given, or learnt from the first ID token (its `aud`).
    public var projectID: String? { lock.withLock { state.projectID } }

    /// Sends Auth requests to an Auth emulator at `http://host:port`.
    public func useEmulator(host: String, port: Int) throws(StorageError) {
        let endpoint = try Endpoint.emulator(host: host, port: port)
        lock.withLock { state.endpoints.emulator = endpoint }
    }

    /// Keeps the signed-in user in `path` (see `AuthPersistence`); a session saved there
    /// becomes the current user at once. nil stops persisting.
    public func setPersistenceFile(_ path: String?) throws(StorageError) {
        guard let path else { return lock.withLock { state.persistence = nil } }
        guard !path.isEmpty else { throw .invalidArgument("The persistence file path is empty") }
        let persistence = AuthPersistence(path: path)
        try persistence.checkWritable()
        let restored = try persistence.load()
        lock.withLock { state.persistence = persistence }
        if let restored { change(to: restored) }
    }

    /// Keeps the signed-in user between runs where the user's settings live, as the SDKs keep it
    /// in the keychain: `setPersistenceFile` on `<ConfigFolder of program>/<app name>-<API key
    /// hash>.json` (see `ConfigFolder.fileName`). A desktop SDK's app calls this once per app.
    public func setPersistence(program: String, appName: String) throws(StorageError) {
        guard !appName.isEmpty else { throw .invalidArgument("The app name is empty") }
        let folder = try ConfigFolder.path(program: program)
        try setPersistenceFile(folder + "/" + ConfigFolder.fileName(appName: appName, key: apiKey) + ".json")
    }

    /// The signed-in user, nil when signed out.
    public var currentUser: AuthUser? { lock.withLock { state.user } }

    /// Counts changes of user (see `State.generation`).
    var generation: Int { lock.withLock { state.generation } }

    // MARK: Sign-in flows

    public func signInAnonymously() throws(StorageError) -> AuthUser {
        try runBlocking { done throws(StorageError) in try startSignIn("signUp", [], call: "sign-in (anonymous)", done) }
    }

    public func signInAnonymously(completion: @escaping StorageCompletion<AuthUser>) throws(StorageError) {
        try runAsync({ done throws(StorageError) in try startSignIn("signUp", [], call: "sign-in (anonymous)", done) },
                     completion: completion)
    }

    public func createUser(email: String, password: String) throws(StorageError) -> AuthUser {
        try runBlocking { done throws(StorageError) in try startCreateUser(email, password, done) }
    }

    public func createUser(email: String, password: String, completion: @escaping StorageCompletion<AuthUser>) throws(StorageError) {
        try runAsync({ done throws(StorageError) in try startCreateUser(email, password, done) }, completion: completion)
    }

    public func signIn(email: String, password: String) throws(StorageError) -> AuthUser {
        try runBlocking { done throws(StorageError) in try startPasswordSignIn(email, password, done) }
    }

    public func signIn(email: String, password: String, completion: @escaping StorageCompletion<AuthUser>) throws(StorageError) {
        try runAsync({ done throws(StorageError) in try startPasswordSignIn(email, password, done) }, completion: completion)
    }

    public func signIn(customToken: String) throws(StorageError) -> AuthUser {
        try runBlocking { done throws(StorageError) in try startCustomTokenSignIn(customToken, done) }
    }

    public func signIn(customToken: String, completion: @escaping StorageCompletion<AuthUser>) throws(StorageError) {
        try runAsync({ done throws(StorageError) in try startCustomTokenSignIn(customToken, done) }, completion: completion)
    }

    /// Restores a session from a refresh token saved earlier (by this process or another).
    public func signIn(refreshToken: String) throws(StorageError) -> AuthUser {
        try runBlocking { done throws(StorageError) in try startRefreshTokenSignIn(refreshToken, done) }
    }

    public func signIn(refreshToken: String, completion: @escaping StorageCompletion<AuthUser>) throws(StorageError) {
        try runAsync({ done throws(StorageError) in try startRefreshTokenSignIn(refreshToken, done) }, completion: completion)
    }

    /// Forgets the current user (nothing is sent) and tells the listeners.
    public func signOut() {
        if lock.withLock({ state.user }) != nil { change(to: nil) }
    }

    /// Deletes the current user's account, then signs out.
    public func deleteUser() throws(StorageError) {
        try runBlocking(startDeleteUser)
    }

    public func deleteUser(completion: @escaping StorageCompletion<Void>) throws(StorageError) {
        try runAsync(startDeleteUser, completion: completion)
    }

    /// Changes the current user's display name and photo URL (Identity Toolkit `accounts:update`),
    /// as the SDKs' `updateProfile`; returns the updated user, who stays signed in with the new
    /// tokens the answer brings. ID-token listeners hear of it.
    /// - Throws: `authNoUser`; `invalidArgument` for a value with a control character.
    public func updateProfile(displayName: ProfileChange, photoURL: ProfileChange) throws(StorageError) -> AuthUser {
        try runBlocking { done throws(StorageError) in try startUpdateProfile(displayName, photoURL, done) }
    }

    public func updateProfile(displayName: ProfileChange, photoURL: ProfileChange,
                              completion: @escaping StorageCompletion<AuthUser>) throws(StorageError) {
        try runAsync({ done throws(StorageError) in try startUpdateProfile(displayName, photoURL, done) }, completion: completion)
    }

    /// The current user's ID token, refreshed first when it is about to expire or `forceRefresh`.
    public func idToken(forceRefresh: Bool) throws(StorageError) -> String {
        try runBlocking { done throws(StorageError) in startIDToken(forceRefresh, done) }
    }

    public func idToken(forceRefresh: Bool, completion: @escaping StorageCompletion<String>) throws(StorageError) {
        try runAsync({ done throws(StorageError) in startIDToken(forceRefresh, done) }, completion: completion)
    }

    // MARK: Listeners

    /// Adds a listener; it runs once now (on the callback thread) with the current user, then on
    /// every change its kind covers. Returns its handle.
    @discardableResult
    public func addListener(_ kind: ListenerKind, _ callback: @escaping @Sendable (AuthUser?) -> Void) -> Int64 {
        listeners.add(Listener(kind: kind, callback: callback)) { [self] in
            let user = state.user
            return { $0.callback(user) }
        }
    }

    /// Removes a listener. When this returns (off the callback thread) it does not run again.
    /// - Throws: `invalidArgument` for an unknown handle.
    public func removeListener(_ handle: Int64) throws(StorageError) { try listeners.remove(handle) }

    /// Removes every listener (their owner is going away), waiting as `removeListener` does.
    public func removeAllListeners() { listeners.removeAll() }

    private func notify(_ user: AuthUser?, userChanged: Bool) {
        listeners.notify({ userChanged || $0.kind == .idToken }) { $0.callback(user) }
    }

    /// Makes `user` the current user (nil: signed out), saves it and tells the listeners; with
    /// `generation`, only if no user signed in or out since.
    private func change(to user: AuthUser?, ifStill generation: Int? = nil) {
        let persistence = lock.withLock { () -> AuthPersistence?? in
            guard generation == nil || generation == state.generation else { return nil }
            state.user = user
            state.generation += 1
            return .some(state.persistence)
        }
        guard let persistence else { return }
        save(user, to: persistence)
        notify(user, userChanged: true)
    }

    private func save(_ user: AuthUser?, to persistence: AuthPersistence?) {
        do throws(StorageError) {
            try persistence?.save(user)
        } catch {
            LogHook.log(.warning, "Firebase Auth: the session was not saved: \(error.message)")
        }
    }

    // MARK: Tokens (AuthTokenSource)

    public func token(rejected: String?, completion: @escaping @Sendable (Result<String?, StorageError>) -> Void) {
        enum Step { case answer(String?), wait, refresh(String, generation: Int) }
        let now = IDToken.now()
        let step = lock.withLock { () -> Step in
            guard let user = state.user else { return .answer(nil) }
            if let token = user.idToken, token != rejected, user.hasFreshToken(at: now) { return .answer(token) }
            guard state.refresh.join(completion) else { return .wait }
            return .refresh(user.refreshToken, generation: state.generation)
        }
        switch step {
        case .answer(let token): completion(.success(token))
        case .wait: break
        case .refresh(let refreshToken, let generation):
            do throws(StorageError) {
                try startTokenExchange(refreshToken) { [self] result in finishRefresh(result, generation: generation) }
            } catch {
                finishRefresh(.failure(error), generation: generation)
            }
        }
    }

    private func finishRefresh(_ result: Result<AuthUser, StorageError>, generation: Int) {
        var changed: (user: AuthUser?, persistence: AuthPersistence?, userChanged: Bool)?
        let (waiters, answer) = lock.withLock { () -> (RenewalInFlight<String?>.Waiters, Result<String?, StorageError>) in
            let waiters = state.refresh.end()
            guard generation == state.generation, let current = state.user else {
                // Signed out or signed in anew meanwhile: the refresh was for a user who is gone.
                return (waiters, .success(state.user?.idToken))
            }
            switch result {
            case .success(let refreshed):
                let user = refreshed.keeping(profileOf: current)
                state.user = user
                changed = (user, state.persistence, false)
                return (waiters, .success(user.idToken))
            case .failure(let error):
                if AuthErrors.endsSession(error) {
                    state.user = nil
                    state.generation += 1
                    changed = (nil, state.persistence, true)
                }
                return (waiters, .failure(error))
            }
        }
        if let changed {
            save(changed.user, to: changed.persistence)
            notify(changed.user, userChanged: changed.userChanged)
        }
        waiters.answer(answer)
    }

    func startIDToken(_ forceRefresh: Bool, _ done: @escaping StorageCompletion<String>) {
        guard let user = currentUser else { return done(.failure(Self.noUser)) }
        token(rejected: forceRefresh ? (user.idToken ?? "") : nil) { result in
            done(result.flatMap { token in token.map { .success($0) } ?? .failure(Self.noUser) })
        }
    }

    static let noUser = StorageError(code: .authNoUser, message: "No user is signed in")

    // MARK: Requests

    private func startCreateUser(_ email: String, _ password: String, _ done: @escaping StorageCompletion<AuthUser>) throws(StorageError) {
        try Self.checkCredentials(email: email, password: password)
        try startSignIn("signUp", [("email", .string(email)), ("password", .string(password))], call: "create user", done)
    }

    private func startPasswordSignIn(_ email: String, _ password: String, _ done: @escaping StorageCompletion<AuthUser>) throws(StorageError) {
        try Self.checkCredentials(email: email, password: password)
        try startSignIn("signInWithPassword", [("email", .string(email)), ("password", .string(password))],
                        call: "sign-in (email and password)", done)
    }

    private func startCustomTokenSignIn(_ token: String, _ done: @escaping StorageCompletion<AuthUser>) throws(StorageError) {
        guard !token.isEmpty else { throw .invalidArgument("The custom token is empty") }
        try startSignIn("signInWithCustomToken", [("token", .string(token))], call: "sign-in (custom token)", done)
    }

    private func startRefreshTokenSignIn(_ refreshToken: String, _ done: @escaping StorageCompletion<AuthUser>) throws(StorageError) {
        guard !refreshToken.isEmpty else { throw .invalidArgument("The refresh token is empty") }
        try startTokenExchange(refreshToken) { [self] result in
            if case .success(let user) = result { change(to: user) }
            done(result)
        }
    }

    private static func checkCredentials(email: String, password: String) throws(StorageError) {
        guard !email.isEmpty else { throw .invalidArgument("The email address is empty") }
        guard !password.isEmpty else { throw .invalidArgument("The password is empty") }
    }

    /// An Identity Toolkit sign-in: the answer's tokens become the current user, with the
    /// account read first (`accounts:lookup`), as the SDKs do, so that its sign-in methods,
    /// dates and verification are known from the start. A failed read fails the sign-in.
    func startSignIn(_ method: String, _ fields: [(String, JSONValue)], call: String,
                     _ done: @escaping StorageCompletion<AuthUser>) throws(StorageError) {
        try postAccounts(method, fields + [("returnSecureToken", .bool(true))], call: call) { [self] result in
            switch result.flatMap({ answer in Self.session(answer, call: call).map { (answer, $0) } }) {
            case .failure(let error): done(.failure(error))
            case .success(let (answer, session)):
                learnProject(from: session)
                readAccount(of: session, call: call) { [self] read in
                    guard case .success(let user) = read else { return done(read) }
                    change(to: user)
                    done(.success(user.with(AdditionalUserInfo(answer: answer, method: method, user: user))))
                }
            }
        }
    }

    /// `user` as its account says (`accounts:lookup` with its ID token).
    private func readAccount(of user: AuthUser, call: String, _ done: @escaping StorageCompletion<AuthUser>) {
        guard let idToken = user.idToken else { return done(.success(user)) }
        do throws(StorageError) {
            try postAccounts("lookup", [("idToken", .string(idToken))], call: call) { result in
                done(result.flatMap { answer in Self.account(in: answer, call: call).map(user.updated(withAccount:)) })
            }
        } catch {
            done(.failure(error))
        }
    }

    /// The account `accounts:lookup` answers.
    static func account(in answer: [String: JSONValue], call: String) -> Result<[String: JSONValue], StorageError> {
        guard let account = answer["users"]?.arrayValue?.first?.objectValue else {
            return .failure(StorageError(code: .authUserNotFound, message: "Firebase Auth \(call): the account no longer exists"))
        }
        return .success(account)
    }

    /// The user a sign-in's answer brings: its tokens and profile.
    static func session(_ answer: [String: JSONValue], call: String) -> Result<AuthUser, StorageError> {
        if case .bool(true)? = answer["needConfirmation"] {
            return .failure(StorageError(code: .authAccountExistsWithDifferentCredential,
                                         message: "Firebase Auth \(call): an account with this email already exists and signs in another way; "
                                            + "sign in to it, then link this credential"))
        }
        guard let idToken = answer["idToken"]?.stringValue.flatMap(IDToken.init),
              let refreshToken = answer["refreshToken"]?.stringValue,
              let uid = answer["localId"]?.stringValue ?? idToken.userID else {
            return .failure(Self.malformedAnswer(call))
        }
        let profile = AuthUser.Profile(uid: uid, email: answer["email"]?.stringValue,
                                       displayName: answer["displayName"]?.stringValue,
                                       photoURL: answer["photoUrl"]?.stringValue, signInProvider: nil)
        return .success(AuthUser(idToken: idToken, refreshToken: refreshToken, profile: profile))
    }

    /// An Identity Toolkit `accounts:<method>` call with no user token.
    func postAccounts(_ method: String, _ fields: [(String, JSONValue)], call: String,
                      _ done: @escaping StorageCompletion<[String: JSONValue]>) throws(StorageError) {
        let (url, endpoint) = lock.withLock { state.endpoints }.accounts(method, apiKey: apiKey)
        var body: [UInt8] = []
        JSONValue.writeObject(fields, into: &body)
        try post(url, endpoint, call: call, contentType: "application/json", body: body, done)
    }

    /// Secure Token's refresh-token grant: a new ID token (and refresh token) for the session.
    private func startTokenExchange(_ refreshToken: String, _ done: @escaping StorageCompletion<AuthUser>) throws(StorageError) {
        let (url, endpoint) = lock.withLock { state.endpoints }.token(apiKey: apiKey)
        let body = Array("grant_type=refresh_token&refresh_token=\(PercentEscaping.queryValue(refreshToken))".utf8)
        let call = "token refresh"
        try post(url, endpoint, call: call, contentType: "application/x-www-form-urlencoded", body: body) { [self] result in
            done(result.flatMap { answer -> Result<AuthUser, StorageError> in
                guard let idToken = answer["id_token"]?.stringValue.flatMap(IDToken.init),
                      let uid = answer["user_id"]?.stringValue ?? idToken.userID else {
                    return .failure(Self.malformedAnswer(call))
                }
                let user = AuthUser(idToken: idToken, refreshToken: answer["refresh_token"]?.stringValue ?? refreshToken,
                                    profile: AuthUser.Profile(uid: uid))
                learnProject(from: user)
                return .success(user)
            })
        }
    }

    private func startDeleteUser(_ done: @escaping StorageCompletion<Void>) throws(StorageError) {
        postAsUser("delete", [], call: "delete user") { [self] result in
            if case .success = result { change(to: nil) }
            done(result.map { _ in () })
        }
    }

    /// An Identity Toolkit `accounts:<method>` call as the current user: `fields` beside its ID
    /// token, refreshed first when it is about to expire. An answer that ends the session signs
    /// that user out.
    func postAsUser(_ method: String, _ fields: [(String, JSONValue)], call: String,
                    _ done: @escaping StorageCompletion<[String: JSONValue]>) {
        let generation = generation
        startIDToken(false) { [self] result in
            switch result {
            case .failure(let error): done(.failure(error))
            case .success(let idToken):
                do throws(StorageError) {
                    try postAccounts(method, [("idToken", .string(idToken))] + fields, call: call) { [self] answer in
                        // A disabled, deleted or revoked user, or an ID token the server refuses,
                        // is signed out before the caller hears of it (Apple's signOutIfTokenIsInvalid).
                        if case .failure(let error) = answer, AuthErrors.endsSession(error) {
                            change(to: nil, ifStill: generation)
                        }
                        done(answer)
                    }
                } catch {
                    done(.failure(error))
                }
            }
        }
    }

    private func startUpdateProfile(_ displayName: ProfileChange, _ photoURL: ProfileChange,
                                    _ done: @escaping StorageCompletion<AuthUser>) throws(StorageError) {
        var changes: [(String, JSONValue)] = []
        var deleted: [JSONValue] = []
        for (field, attribute, change) in [("displayName", "DISPLAY_NAME", displayName), ("photoUrl", "PHOTO_URL", photoURL)] {
            switch change {
            case .unchanged: break
            case .delete: deleted.append(.string(attribute))
            case .set(let value):
                guard !value.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
                    throw .invalidArgument("The \(field == "photoUrl" ? "photo URL" : "display name") holds a control character")
                }
                changes.append((field, .string(value)))
            }
        }
        if !deleted.isEmpty { changes.append(("deleteAttribute", .array(deleted))) }
        let generation = lock.withLock { state.generation }
        postAsUser("update", changes + [("returnSecureToken", .bool(true))], call: "update profile") { [self] result in
            done(result.flatMap { answer in applyProfileUpdate(answer, generation: generation) })
        }
    }

    /// The user an account call (`accounts:update`, `lookup`, a link) answered with: its profile,
    /// and its new tokens when it sent them. Becomes the current user unless another sign-in or a
    /// sign-out came meanwhile; ID-token listeners hear of it unless `notifying` is false (a read
    /// of the account that changed no token, as the SDKs' after a sign-in).
    func applyProfileUpdate(_ answer: [String: JSONValue], generation: Int, notifying: Bool = true) -> Result<AuthUser, StorageError> {
        let applied = lock.withLock { () -> (user: AuthUser, persistence: AuthPersistence?)? in
            guard generation == state.generation, let current = state.user,
                  (answer["localId"]?.stringValue).map({ $0 == current.uid }) ?? true else { return nil }
            let user = current.updated(withAccount: answer)
            state.user = user
            return (user, state.persistence)
        }
        guard let applied else {
            return .failure(StorageError(code: .authNoUser, message: "The user signed out or changed during the call"))
        }
        save(applied.user, to: applied.persistence)
        if notifying { notify(applied.user, userChanged: false) }
        return .success(applied.user)
    }

    func learnProject(from user: AuthUser) {
        guard let audience = JSONValue.parse(Array(user.claimsJSON.utf8))?["aud"]?.stringValue else { return }
        lock.withLock { if state.projectID == nil { state.projectID = audience } }
    }

    static func malformedAnswer(_ call: String) -> StorageError {
        StorageError(code: .unknown, message: "Firebase Auth \(call): the answer holds no readable ID token")
    }

    /// One POST through the attempt loop: transport failures, 5xx and 429 are retried; any other
    /// error status is an Auth error, final at once.
    private func post(_ url: String, _ endpoint: Endpoint, call: String, contentType: String, body: [UInt8],
                      _ done: @escaping StorageCompletion<[String: JSONValue]>) throws(StorageError) {
        var settings = StorageSettings()
        settings.endpoint = endpoint
        var hooks = RetryingRequest.Hooks()
        hooks.classify = { result, outcome in
            guard case .success(let response) = result, response.status >= 300, !Backoff.isRetryable(status: response.status) else {
                return outcome
            }
            return .fail(AuthErrors.error(status: response.status, body: response.body, call: call))
        }
        let request = HTTPRequest(method: "POST", url: url, headers: [(name: "Content-Type", value: contentType)], body: BytesBody(body))
        try RetryingRequest(
            host: self, subject: .service("Firebase Auth \(call)"), settings: settings,
            retryTime: settings.maxOperationRetryTime, options: .init(authenticated: false), hooks: hooks,
            build: { _, _ in request },
            completion: { result in
                done(result.flatMap { response in
                    guard let answer = JSONValue.parse(response.body)?.objectValue else {
                        return .failure(StorageError(code: .unknown, message: "Firebase Auth \(call): the answer is not JSON",
                                                     httpStatus: response.status))
                    }
                    return .success(answer)
                })
            }).start()
    }

    // MARK: RequestHost

    func register(_ work: any StorageWork) throws(StorageError) { try self.work.register(work) }

    func unregister(_ work: any StorageWork) { self.work.unregister(work) }
}

extension AuthUser {
    /// This refreshed user with the profile fields its token lacks taken from `previous`.
    func keeping(profileOf previous: AuthUser) -> AuthUser {
        guard let idToken = idToken.flatMap(IDToken.init) else { return self }
        var profile = previous.profile
        profile.uid = uid
        return AuthUser(idToken: idToken, refreshToken: refreshToken, profile: profile)
    }
}

extension AuthUser.Profile {
    init(uid: String) { self.init(uid: uid, email: nil, displayName: nil, photoURL: nil, signInProvider: nil) }
}
