import FBStorage
import FirebaseCore
import Foundation

/// Firebase App Check for one app, as in the Apple SDK, over the fbstorage core's App Check.
///
/// Install a provider factory with `AppCheck.setAppCheckProviderFactory(_:)` before
/// `FirebaseApp.configure()`: from then on every `Storage.storage()` of every app sends an App
/// Check token with every request, with no other code. The core keeps the token fresh (renewed
/// in the background halfway through its life while `isTokenAutoRefreshEnabled`, when a request
/// needs one and the cached one is about to expire, and once after Storage refuses one). The token exchange goes to production unless FIREBASE_APP_CHECK_EMULATOR_HOST=host:port
/// is set when the app's App Check is made (fbstorage's variable; no Firebase SDK defines one).
open class AppCheck: NSObject, @unchecked Sendable {
    let core: FBStorage.AppCheck

    private init(core: FBStorage.AppCheck) {
        self.core = core
        core.isTokenAutoRefreshEnabled = true   // the Apple SDK's default
        super.init()
    }

    // MARK: Factory

    private static let lock = NSLock()
    nonisolated(unsafe) private static var factory: AppCheckProviderFactory?
    nonisolated(unsafe) private static var instances: [String: AppCheck] = [:]

    /// Installs `factory` (nil: none) for the App Check of apps made from now on, as the Apple SDK
    /// (an app's App Check made before keeps its provider). Every app's storages then send its tokens.
    open class func setAppCheckProviderFactory(_ factory: AppCheckProviderFactory?) {
        lock.withLock { self.factory = factory }
        FirebaseApp.registerComponentMaker((any AppCheckTokenSource).self) { app in
            appCheck(app: app)?.core
        }
    }

    // MARK: Instances

    /// The default app's App Check; stops the program when the default app is not configured.
    open class func appCheck() -> AppCheck {
        guard let app = FirebaseApp.app() else {
            fatalError("The default FirebaseApp instance must be configured before the default AppCheck instance "
                       + "can be initialized. Call FirebaseApp.configure() first.")
        }
        guard let appCheck = appCheck(app: app) else {
            fatalError("Cannot make the App Check of the default app: its options need a projectID")
        }
        return appCheck
    }

    /// `app`'s App Check, made on first use with the installed factory's provider; nil when the
    /// app's options lack a project id or hold ids the core refuses (stderr says why).
    open class func appCheck(app: FirebaseApp) -> AppCheck? {
        if let existing = lock.withLock({ instances[app.name] }) { return existing }
        let made: AppCheck
        do {
            made = AppCheck(core: try makeCore(app))
        } catch {
            warn("AppCheck.appCheck(app:): \(error.message)")
            return nil
        }
        let (winner, factory) = lock.withLock { () -> (AppCheck, AppCheckProviderFactory?) in
            if let raced = instances[app.name] { return (raced, nil) }
            instances[app.name] = made
            return (made, self.factory)
        }
        guard winner === made else { return winner }
        made.postTokenChanges(appName: app.name)
        if let provider = factory?.createProvider(with: app) { made.install(provider) }
        app.register(made.core, as: (any AppCheckTokenSource).self)
        return made
    }

    static func makeCore(_ app: FirebaseApp) throws(FBStorage.StorageError) -> FBStorage.AppCheck {
        guard let projectID = app.options.projectID else { throw .invalidArgument("The app's options have no projectID") }
        return try FBStorage.AppCheck(projectID: projectID, appID: app.options.googleAppID, apiKey: app.options.apiKey)
    }

    /// Posts `AppCheckTokenDidChange` for every token the core keeps (its token listener).
    private func postTokenChanges(appName: String) {
        core.addTokenListener { [weak self] token in
            guard let self else { return }
            NotificationCenter.default.post(name: .AppCheckTokenDidChange, object: self,
                                            userInfo: [AppCheckTokenNotificationKey: token.token,
                                                       AppCheckAppNameNotificationKey: appName])
        }
    }

    /// The debug provider's exchange runs in the core; any other provider is asked on the core's
    /// callback thread and may answer later, from any thread.
    private func install(_ provider: AppCheckProvider) {
        if let debug = provider as? AppCheckDebugProvider { return core.setProvider(debug.core) }
        let provider = UncheckedBox(provider)
        core.setProvider(AppCheckCustomProvider { limitedUse, request in
            let answer: (AppCheckToken?, Error?) -> Void = { token, error in
                if let token {
                    try? request.complete(token: token.token, expiresAt: token.expirationDate.timeIntervalSince1970)
                } else {
                    try? request.fail(message: error.map { ($0 as NSError).localizedDescription } ?? "no token and no error")
                }
            }
            if limitedUse {
                provider.value.getLimitedUseToken(completion: answer)
            } else {
                provider.value.getToken(completion: answer)
            }
        })
    }

    // MARK: Tokens

    /// The current token, renewed first when it is about to expire or `forcingRefresh`. Handlers
    /// run on a serial queue of this module (the Apple SDK's run on the main queue, which a Linux
    /// program need not drain).
    open func token(forcingRefresh: Bool, completion handler: @escaping (AppCheckToken?, Error?) -> Void) {
        deliver(handler) { done throws(FBStorage.StorageError) in try core.token(forcingRefresh: forcingRefresh, completion: done) }
    }

    open func token(forcingRefresh: Bool) async throws -> AppCheckToken {
        try await withCheckedThrowingContinuation { continuation in
            token(forcingRefresh: forcingRefresh) { token, error in Self.resume(continuation, token, error) }
        }
    }

    /// A new limited-use token, for one replay-protected call of your own backend.
    open func limitedUseToken(completion handler: @escaping (AppCheckToken?, Error?) -> Void) {
        deliver(handler) { done throws(FBStorage.StorageError) in try core.limitedUseToken(completion: done) }
    }

    open func limitedUseToken() async throws -> AppCheckToken {
        try await withCheckedThrowingContinuation { continuation in
            limitedUseToken { token, error in Self.resume(continuation, token, error) }
        }
    }

    /// Whether the token is renewed in the background before requests need it (halfway through
    /// its life; failed renewals again with backoff), as the Apple SDK's refresher; on by default.
    /// Off, a token is renewed when a request needs one. See `FBStorage.AppCheck.isTokenAutoRefreshEnabled`.
    open var isTokenAutoRefreshEnabled: Bool {
        get { core.isTokenAutoRefreshEnabled }
        set { core.isTokenAutoRefreshEnabled = newValue }
    }

    private func deliver(_ handler: @escaping (AppCheckToken?, Error?) -> Void,
                         _ start: (@escaping StorageCompletion<FBStorage.AppCheckToken>) throws(FBStorage.StorageError) -> Void) {
        let handler = UncheckedBox(handler)
        let done: StorageCompletion<FBStorage.AppCheckToken> = { result in
            Self.callbacks.async {
                switch result {
                case .success(let token): handler.value(Self.appleToken(token), nil)
                case .failure(let error): handler.value(nil, AppCheckErrorCode.error(error))
                }
            }
        }
        do throws(FBStorage.StorageError) {
            try start(done)
        } catch {
            done(.failure(error))
        }
    }

    private static func resume(_ continuation: CheckedContinuation<AppCheckToken, Error>, _ token: AppCheckToken?, _ error: Error?) {
        if let token { return continuation.resume(returning: token) }
        continuation.resume(throwing: error ?? NSError(domain: AppCheckErrorDomain, code: AppCheckErrorCode.unknown.rawValue))
    }

    private static let callbacks = DispatchQueue(label: "com.google.firebase.appcheck.callbacks")

    static func appleToken(_ token: FBStorage.AppCheckToken) -> AppCheckToken {
        AppCheckToken(token: token.token, expirationDate: Date(timeIntervalSince1970: token.expiresAt))
    }

    static func warn(_ message: String) {
        FileHandle.standardError.write(Data("[FirebaseAppCheck] \(message)\n".utf8))
    }
}
