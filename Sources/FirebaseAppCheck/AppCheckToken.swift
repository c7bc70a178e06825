import Foundation

/// A Firebase App Check token and when it expires, as in the Apple SDK. Its description never
/// shows the token.
open class AppCheckToken: NSObject, @unchecked Sendable {
    /// The token (a JWT), sent as `X-Firebase-AppCheck`.
    public let token: String
    public let expirationDate: Date

    public init(token: String, expirationDate: Date) {
        self.token = token
        self.expirationDate = expirationDate
        super.init()
    }

    open override var description: String { "AppCheckToken(expirationDate: \(expirationDate))" }
}
