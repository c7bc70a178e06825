import FBStorage
import FirebaseCore
import Foundation

/// The debug provider, as the Apple SDK's: exchanges a debug token registered in the Firebase
/// console (App Check, Manage debug tokens) or with the emulator's `--app-check-debug-token` for
/// App Check tokens. For CI and development machines, never for shipped apps.
///
/// The debug token (`currentDebugToken()`): the environment's first of
/// `FBStorage.AppCheckDebugProvider.environmentVariables` (FIREBASE_APP_CHECK_DEBUG_TOKEN, then the
/// Apple SDK's FIRAAppCheckDebugToken and AppCheckDebugToken), else `localDebugToken()`: a random
/// token made once and kept in `$XDG_CONFIG_HOME/fbstorage-swift/app-check-debug-token` (mode
/// 0600), to register once in the console. Unlike the Apple SDK, it is never logged.
open class AppCheckDebugProvider: NSObject, AppCheckProvider, @unchecked Sendable {
    let core: FBStorage.AppCheckDebugProvider
    private let app: FirebaseApp
    private let lock = NSLock()
    private var exchange: FBStorage.AppCheck?

    /// nil when the app's options lack a project id, or the debug token is unusable (stderr says why).
    public init?(app: FirebaseApp) {
        guard app.options.projectID != nil else {
            AppCheck.warn("AppCheckDebugProvider: the app's options have no projectID")
            return nil
        }
        do {
            core = try FBStorage.AppCheckDebugProvider(secret: Self.environmentToken() ?? Self.storedLocalToken())
        } catch {
            AppCheck.warn("AppCheckDebugProvider: \(error.message)")
            return nil
        }
        self.app = app
        super.init()
    }

    /// The token made for this machine (and kept), whether or not the environment overrides it.
    open func localDebugToken() -> String { Self.storedLocalToken() }

    /// The debug token this provider exchanges.
    open func currentDebugToken() -> String { Self.environmentToken() ?? Self.storedLocalToken() }

    public func getToken(completion handler: @escaping (AppCheckToken?, Error?) -> Void) {
        fetch(limitedUse: false, handler)
    }

    public func getLimitedUseToken(completion handler: @escaping (AppCheckToken?, Error?) -> Void) {
        fetch(limitedUse: true, handler)
    }

    /// The exchange through an App Check of its own (one made for this provider, not the app's).
    private func fetch(limitedUse: Bool, _ handler: @escaping (AppCheckToken?, Error?) -> Void) {
        let handler = UncheckedBox(handler)
        do throws(FBStorage.StorageError) {
            let appCheck = try exchangeAppCheck()
            let done: StorageCompletion<FBStorage.AppCheckToken> = { result in
                switch result {
                case .success(let token): handler.value(AppCheck.appleToken(token), nil)
                case .failure(let error): handler.value(nil, AppCheckErrorCode.error(error))
                }
            }
            if limitedUse {
                try appCheck.limitedUseToken(completion: done)
            } else {
                try appCheck.token(forcingRefresh: true, completion: done)
            }
        } catch {
            handler.value(nil, AppCheckErrorCode.error(error))
        }
    }

    private func exchangeAppCheck() throws(FBStorage.StorageError) -> FBStorage.AppCheck {
        lock.lock()
        defer { lock.unlock() }
        if let exchange { return exchange }
        let made = try AppCheck.makeCore(app)
        made.setProvider(core)
        exchange = made
        return made
    }

    private static func environmentToken() -> String? {
        let environment = ProcessInfo.processInfo.environment
        return FBStorage.AppCheckDebugProvider.environmentVariables.lazy.compactMap { environment[$0] }.first { !$0.isEmpty }
    }

    private static let localTokenLock = NSLock()

    /// The kept local token, made (a UUID) and written on first use; a process-wide one when it
    /// cannot be kept.
    private static func storedLocalToken() -> String {
        localTokenLock.withLock {
            if let cached = localToken { return cached }
            let path = localTokenPath()
            if let path, let saved = try? String(contentsOfFile: path, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines),
               !saved.isEmpty {
                localToken = saved
                return saved
            }
            let made = UUID().uuidString
            if let path {
                FileManager.default.createFile(atPath: path, contents: Data(made.utf8), attributes: [.posixPermissions: 0o600])
            }
            localToken = made
            return made
        }
    }

    nonisolated(unsafe) private static var localToken: String?

    private static func localTokenPath() -> String? {
        (try? FirebaseApp.configDirectory()).map { $0 + "/app-check-debug-token" }
    }
}

/// Makes an `AppCheckDebugProvider` for each app, as the Apple SDK's factory:
/// `AppCheck.setAppCheckProviderFactory(AppCheckDebugProviderFactory())` before `FirebaseApp.configure()`.
open class AppCheckDebugProviderFactory: NSObject, AppCheckProviderFactory {
    public override init() { super.init() }

    open func createProvider(with app: FirebaseApp) -> AppCheckProvider? {
        AppCheckDebugProvider(app: app)
    }
}
