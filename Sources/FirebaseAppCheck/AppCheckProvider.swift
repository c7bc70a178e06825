import FirebaseCore
import Foundation

/// What attests the app and gets its App Check tokens, as the Apple SDK's protocol: implement
/// either `getToken(completion:)` or `getToken() async throws` (each defaults to the other, as the
/// Objective-C protocol imports to Swift in both forms). App Check caches the token: get a new one
/// each time.
public protocol AppCheckProvider: NSObjectProtocol {
    func getToken(completion handler: @escaping (AppCheckToken?, Error?) -> Void)
    func getToken() async throws -> AppCheckToken
    /// A token for one replay-protected call; by default, `getToken`'s.
    func getLimitedUseToken(completion handler: @escaping (AppCheckToken?, Error?) -> Void)
}

extension AppCheckProvider {
    public func getToken(completion handler: @escaping (AppCheckToken?, Error?) -> Void) {
        let provider = UncheckedBox(self)
        let handler = UncheckedBox(handler)
        Task {
            do {
                handler.value(try await provider.value.getToken(), nil)
            } catch {
                handler.value(nil, error)
            }
        }
    }

    public func getToken() async throws -> AppCheckToken {
        try await withCheckedThrowingContinuation { continuation in
            getToken { token, error in
                if let token { return continuation.resume(returning: token) }
                continuation.resume(throwing: error ?? NSError(domain: AppCheckErrorDomain, code: AppCheckErrorCode.unknown.rawValue,
                                                               userInfo: [NSLocalizedDescriptionKey: "The provider answered neither a token nor an error"]))
            }
        }
    }

    public func getLimitedUseToken(completion handler: @escaping (AppCheckToken?, Error?) -> Void) {
        getToken(completion: handler)
    }
}

/// Makes the provider of each app, as the Apple SDK's protocol.
public protocol AppCheckProviderFactory: NSObjectProtocol {
    func createProvider(with app: FirebaseApp) -> AppCheckProvider?
}

/// Carries a value the Swift 5 mode callbacks of the Apple API hand across threads.
struct UncheckedBox<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
