import Foundation

/// An ID token with the claims of its payload, as the Apple SDK decodes it.
open class AuthTokenResult: NSObject {
    /// The ID token (a JWT).
    open var token: String
    /// When the token expires (`exp`).
    open var expirationDate: Date
    /// When the user signed in (`auth_time`), not when the token was refreshed.
    open var authDate: Date
    /// When the token was issued (`iat`): its last refresh.
    open var issuedAtDate: Date
    /// How the user signed in (`firebase.sign_in_provider`): "anonymous", "password", "custom", …
    open var signInProvider: String
    /// The second factor used (`firebase.sign_in_second_factor`), "" without one.
    open var signInSecondFactor: String
    /// Every claim of the payload, the reserved ones and the custom claims set with the Admin SDK.
    open var claims: [String: Any]

    /// Decodes `token`'s payload (the signature is the server's business, as in the Apple SDK).
    /// - Throws: an `AuthErrorCode.malformedJWT` error when it is not a JWT with a JSON payload
    ///   holding `exp`, `iat` and `auth_time`.
    init(token: String) throws {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let payload = Self.base64URLDecoded(parts[1]),
              let claims = try? JSONSerialization.jsonObject(with: payload) as? [String: Any],
              let exp = (claims["exp"] as? NSNumber)?.doubleValue,
              let iat = (claims["iat"] as? NSNumber)?.doubleValue,
              let authTime = (claims["auth_time"] as? NSNumber)?.doubleValue else {
            throw AuthErrorCode.malformedJWT.error(reason: "The ID token is not a JWT with exp, iat and auth_time claims.")
        }
        let firebase = claims["firebase"] as? [String: Any]
        self.token = token
        self.claims = claims
        expirationDate = Date(timeIntervalSince1970: exp)
        issuedAtDate = Date(timeIntervalSince1970: iat)
        authDate = Date(timeIntervalSince1970: authTime)
        signInProvider = firebase?["sign_in_provider"] as? String ?? ""
        signInSecondFactor = firebase?["sign_in_second_factor"] as? String ?? ""
    }

    private static func base64URLDecoded(_ text: Substring) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        return Data(base64Encoded: base64)
    }
}
