import FBStorage
import FirebaseCore
import Foundation

/// The Apple SDK's handle types of listeners: pass them back to the matching remove call.
public typealias AuthStateDidChangeListenerHandle = NSObjectProtocol
public typealias IDTokenDidChangeListenerHandle = NSObjectProtocol

/// Firebase Auth for one app, as in the Apple SDK, over the fbstorage core's `Auth` (Identity
/// Toolkit sign-in, Secure Token refresh shared by concurrent requests, the session kept in a
/// file per app in `FirebaseApp.configDirectory()`: see `FBStorage.Auth.setPersistence`). The
/// app's storages (`Storage.storage(app:)`) send the signed-in user's ID token with no code from
/// the caller.
///
/// Completion handlers and listeners run on `callbackQueue`. Requests go to production unless
/// `useEmulator(withHost:port:)` or `FIREBASE_AUTH_EMULATOR_HOST=host:port` names an emulator.
open class Auth: NSObject {
    /// The app this auth belongs to.
    public private(set) weak var app: FirebaseApp?
    let core: FBStorage.Auth

    private let lock = NSLock()
    private var queue = DispatchQueue(label: "com.google.firebase.auth.callbacks")
    /// The `User` handed out for the current uid, so `currentUser` stays the same object across
    /// token refreshes, as in the Apple SDK.
    private var lastUser: User?

    // MARK: Instances

    /// The auth of the default app.
    open class func auth() -> Auth {
        guard let app = FirebaseApp.app() else {
            fatalError("The default FirebaseApp instance must be configured before the default Auth "
                       + "instance can be initialized. Call FirebaseApp.configure() first.")
        }
        return auth(app: app)
    }

    /// The auth of `app`: one per app, created on first use with the app's API key and project ID,
    /// with the user kept from the previous run signed in.
    open class func auth(app: FirebaseApp) -> Auth {
        var created = false
        let auth = app.component(Auth.self) {
            created = true
            return Auth(app: app)
        }
        if created { app.register(auth.core, as: (any AuthTokenSource).self) }
        return auth
    }

    private init(app: FirebaseApp) {
        self.app = app
        guard let apiKey = app.options.apiKey, !apiKey.isEmpty else {
            fatalError("FirebaseAuth needs the app's API key: set FirebaseOptions.apiKey (API_KEY in "
                       + "GoogleService-Info.plist).")
        }
        do {
            core = try FBStorage.Auth(apiKey: apiKey, projectID: app.options.projectID)
        } catch {
            fatalError("Cannot create the Auth of app \(app.name): \(error.message)")
        }
        super.init()
        // The signed-in user of the last run, as the Apple SDK restores it from the keychain.
        do {
            try core.setPersistence(program: FirebaseApp.configProgram, appName: app.name)
        } catch {
            FileHandle.standardError.write(Data("[FirebaseAuth] warning: the session is not kept between runs: \(error.message)\n".utf8))
        }
    }

    // MARK: Settings

    /// The queue completion handlers and listeners run on. As `Storage.callbackQueue`, it defaults
    /// on Linux to a serial background queue, not `.main` (the Apple SDK's): a command-line program
    /// rarely services the main queue. Apps with a main run loop may set `.main`.
    public var callbackQueue: DispatchQueue {
        get { lock.withLock { queue } }
        set { lock.withLock { queue = newValue } }
    }

    /// Sends Auth requests to the Auth emulator at `http://host:port`. An empty host stops the
    /// program, as in the Apple SDK.
    open func useEmulator(withHost host: String, port: Int) {
        guard !host.isEmpty else { fatalError("Cannot connect to empty host") }
        do {
            try core.useEmulator(host: host, port: port)
        } catch {
            fatalError("Invalid emulator address \(host):\(port): \(error.message)")
        }
    }

    // MARK: The current user

    /// The signed-in user, nil when signed out.
    public var currentUser: User? { core.currentUser.map(user(for:)) }

    /// The `User` for the core's `signedIn` user: the same object as long as the uid is the same.
    /// The result of a call that answered `signedIn` (a sign-in, link or reauthentication).
    func dataResult(_ signedIn: AuthUser) -> AuthDataResult {
        AuthDataResult(user: user(for: signedIn), additionalUserInfo: signedIn.additionalUserInfo.map(AdditionalUserInfo.init))
    }

    func user(for signedIn: AuthUser) -> User {
        lock.withLock {
            if let lastUser, lastUser.uid == signedIn.uid {
                lastUser.update(signedIn)
                return lastUser
            }
            let created = User(auth: self, snapshot: signedIn)
            lastUser = created
            return created
        }
    }

    /// Whether `user` is the one signed in now (a `User` kept after a sign-out or another sign-in is not).
    func isSignedIn(_ user: User) -> Bool { core.currentUser?.uid == user.uid }

    /// Signs the current user out (nothing is sent to the server); the listeners hear of it.
    open func signOut() throws {
        core.signOut()
    }

    // MARK: Sign-in flows

    /// Signs in as a new anonymous user; an anonymous user already signed in is returned instead,
    /// as in the Apple SDK.
    open func signInAnonymously(completion: ((AuthDataResult?, Error?) -> Void)? = nil) {
        if let user = currentUser, user.isAnonymous {
            // As the Apple SDK: no new account, and no provider's profile.
            let info = AdditionalUserInfo(providerID: "", profile: nil, username: nil, isNewUser: false)
            return deliver(.success(AuthDataResult(user: user, additionalUserInfo: info)), to: completion.map(Self.pair))
        }
        signIn(completion) { [core] done throws(FBStorage.StorageError) in try core.signInAnonymously(completion: done) }
    }

    @discardableResult
    open func signInAnonymously() async throws -> AuthDataResult {
        try await awaiting { signInAnonymously(completion: $0) }
    }

    /// Creates a password account and signs in as its user.
    open func createUser(withEmail email: String, password: String,
                         completion: ((AuthDataResult?, Error?) -> Void)? = nil) {
        signIn(email: email, password: password, missingPassword: .weakPassword, completion) { [core] done throws(FBStorage.StorageError) in
            try core.createUser(email: email, password: password, completion: done)
        }
    }

    @discardableResult
    open func createUser(withEmail email: String, password: String) async throws -> AuthDataResult {
        try await awaiting { createUser(withEmail: email, password: password, completion: $0) }
    }

    /// Signs in with an email address and password. A failure keeps the current user.
    open func signIn(withEmail email: String, password: String,
                     completion: ((AuthDataResult?, Error?) -> Void)? = nil) {
        signIn(email: email, password: password, missingPassword: .wrongPassword, completion) { [core] done throws(FBStorage.StorageError) in
            try core.signIn(email: email, password: password, completion: done)
        }
    }

    @discardableResult
    open func signIn(withEmail email: String, password: String) async throws -> AuthDataResult {
        try await awaiting { signIn(withEmail: email, password: password, completion: $0) }
    }

    /// Signs in with a custom token minted by your server (the Admin SDK's `createCustomToken`).
    open func signIn(withCustomToken token: String, completion: ((AuthDataResult?, Error?) -> Void)? = nil) {
        guard !token.isEmpty else {
            return deliver(.failure(AuthErrorCode.invalidCustomToken.error(reason: "The custom token is empty.")),
                           to: completion.map(Self.pair))
        }
        signIn(completion) { [core] done throws(FBStorage.StorageError) in
            try core.signIn(customToken: token, completion: done)
        }
    }

    @discardableResult
    open func signIn(withCustomToken token: String) async throws -> AuthDataResult {
        try await awaiting { signIn(withCustomToken: token, completion: $0) }
    }

    /// A password flow, after the Apple SDK's answers to an empty email or password (no request).
    private func signIn(email: String, password: String, missingPassword: AuthErrorCode,
                        _ completion: ((AuthDataResult?, Error?) -> Void)?,
                        _ start: @escaping (@escaping StorageCompletion<AuthUser>) throws(FBStorage.StorageError) -> Void) {
        let failure = email.isEmpty ? AuthErrorCode.missingEmail.error()
                    : password.isEmpty ? missingPassword.error(reason: "Missing password") : nil
        if let failure { return deliver(.failure(failure), to: completion.map(Self.pair)) }
        signIn(completion, start)
    }

    private func signIn(_ completion: ((AuthDataResult?, Error?) -> Void)?,
                        _ start: @escaping (@escaping StorageCompletion<AuthUser>) throws(FBStorage.StorageError) -> Void) {
        run(start, completion.map(Self.pair)) { [self] signedIn in dataResult(signedIn) }
    }

    // MARK: Listeners

    /// Adds a listener called once now, then whenever a user signs in with another uid than the
    /// last one it heard of, or signs out. Calls run on `callbackQueue`.
    open func addStateDidChangeListener(_ listener: @escaping (Auth, User?) -> Void) -> AuthStateDidChangeListenerHandle {
        // As the Apple SDK: an ID-token listener that passes on changes of uid only. The core calls
        // it on one thread at a time, so the last uid needs no lock.
        final class LastUID: @unchecked Sendable {
            var heard = false
            var uid: String?
        }
        let last = LastUID()
        return addListener(listener) { signedIn in
            defer { last.heard = true; last.uid = signedIn?.uid }
            return !last.heard || last.uid != signedIn?.uid
        }
    }

    open func removeStateDidChangeListener(_ listenerHandle: AuthStateDidChangeListenerHandle) {
        removeListener(listenerHandle)
    }

    /// Adds a listener called once now, then on every sign-in, sign-out and new ID token of the
    /// current user. Calls run on `callbackQueue`.
    open func addIDTokenDidChangeListener(_ listener: @escaping (Auth, User?) -> Void) -> IDTokenDidChangeListenerHandle {
        addListener(listener) { _ in true }
    }

    open func removeIDTokenDidChangeListener(_ listenerHandle: IDTokenDidChangeListenerHandle) {
        removeListener(listenerHandle)
    }

    private func addListener(_ listener: @escaping (Auth, User?) -> Void,
                             passing: @escaping (AuthUser?) -> Bool) -> NSObjectProtocol {
        let handle = ListenerHandle(auth: self)
        // The core keeps the closure, and so the handle, until removal, as the Apple SDK keeps the block.
        handle.coreHandle = core.addListener(.idToken) { [weak self] signedIn in
            guard let self, passing(signedIn) else { return }
            callbackQueue.async {
                // Removed while this call waited on the queue: the Apple SDK would not call it either.
                guard !handle.isRemoved else { return }
                listener(self, signedIn.map(self.user(for:)))
            }
        }
        return handle
    }

    private func removeListener(_ listenerHandle: NSObjectProtocol) {
        guard let handle = listenerHandle as? ListenerHandle, handle.auth === self, handle.markRemoved() else { return }
        try? core.removeListener(handle.coreHandle)
    }

    /// A listener's handle: the core's listener id, and whether it was removed.
    private final class ListenerHandle: NSObject, @unchecked Sendable {
        weak var auth: Auth?
        var coreHandle: Int64 = 0
        private let lock = NSLock()
        private var removed = false

        init(auth: Auth) { self.auth = auth }

        var isRemoved: Bool { lock.withLock { removed } }

        /// Marks the handle removed; false when it already was.
        func markRemoved() -> Bool {
            lock.withLock {
                defer { removed = true }
                return !removed
            }
        }
    }

    // MARK: Running core operations

    /// Starts a core operation and delivers its outcome, `transform`ed, on `callbackQueue`.
    func run<Value, Answer>(_ start: (@escaping StorageCompletion<Value>) throws(FBStorage.StorageError) -> Void,
                            _ completion: ((Result<Answer, NSError>) -> Void)?,
                            transform: @escaping (Value) -> Answer) {
        do throws(FBStorage.StorageError) {
            try start { [self] result in
                deliver(result.map(transform).mapError(\.authError), to: completion)
            }
        } catch {
            deliver(.failure(error.authError), to: completion)
        }
    }

    func deliver<Answer>(_ result: Result<Answer, NSError>, to completion: ((Result<Answer, NSError>) -> Void)?) {
        guard let completion else { return }
        callbackQueue.async { completion(result) }
    }

    /// The Apple SDK's `(value, error)` completion as a `Result` one.
    static func pair<Answer>(_ completion: @escaping (Answer?, Error?) -> Void) -> (Result<Answer, NSError>) -> Void {
        { result in
            switch result {
            case .success(let value): completion(value, nil)
            case .failure(let error): completion(nil, error)
            }
        }
    }
}

/// The async form of a completion-handler operation.
func awaiting<Answer>(_ start: (@escaping (Answer?, Error?) -> Void) -> Void) async throws -> Answer {
    try await withCheckedThrowingContinuation { continuation in
        start { value, error in
            if let value { continuation.resume(returning: value) } else { continuation.resume(throwing: error!) }
        }
    }
}
