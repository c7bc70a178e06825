/// The debug provider: exchanges a debug secret registered in the Firebase console (App Check,
/// Manage debug tokens) or with the emulator's `--app-check-debug-token` for App Check tokens
/// (`:exchangeDebugToken`). For CI and development machines, never for shipped apps.
public struct AppCheckDebugProvider: AppCheckProvider {
    /// The environment variables the secret is read from, first set wins: ours, then the names
    /// the Apple SDK reads (`FIRAAppCheckDebugToken` in FirebaseAppCheck, `AppCheckDebugToken` in
    /// AppCheckCore's GACAppCheckDebugProvider).
    public static let environmentVariables = ["FIREBASE_APP_CHECK_DEBUG_TOKEN", "FIRAAppCheckDebugToken", "AppCheckDebugToken"]

    let secret: String

    /// - Parameter secret: the debug secret; nil reads it from `environmentVariables`.
    /// - Throws: `invalidArgument` for an empty secret, one with a control character, or none
    ///   given and none in the environment.
    public init(secret: String? = nil) throws(StorageError) {
        guard let secret = secret ?? Self.environmentSecret() else {
            throw .invalidArgument("App Check debug provider: no debug token given, and none of "
                                   + Self.environmentVariables.joined(separator: ", ") + " is set")
        }
        guard !secret.isEmpty else { throw .invalidArgument("App Check debug provider: the debug token is empty") }
        try HeaderValue.check(secret, field: "The App Check debug token")
        self.secret = secret
    }

    static func environmentSecret() -> String? {
        environmentVariables.lazy.compactMap { name in getenv(name).map { String(cString: $0) } }.first { !$0.isEmpty }
    }

    public func token(for appCheck: AppCheck, limitedUse: Bool,
                      completion: @escaping @Sendable (Result<AppCheckToken, StorageError>) -> Void) {
        appCheck.exchange("exchangeDebugToken", field: ("debugToken", secret), limitedUse: limitedUse, completion: completion)
    }
}

#if canImport(Glibc)
import Glibc
#endif
