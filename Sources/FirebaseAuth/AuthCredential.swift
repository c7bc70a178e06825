import FBStorage
import Foundation

/// A credential for `Auth.signIn(with:)`, `User.link(with:)` and `User.reauthenticate(with:)`, as
/// in the Apple SDK: made by `EmailAuthProvider`, `GoogleAuthProvider`, `FacebookAuthProvider`,
/// `GitHubAuthProvider`, `TwitterAuthProvider` or `OAuthProvider`. A bad
/// value (an empty email or token) is reported by the call that uses it, as there.
open class AuthCredential: NSObject {
    /// The provider's id: "password", "google.com", …
    public let provider: String
    /// The core's credential, or the error a call with it reports.
    let core: Result<FBStorage.AuthCredential, NSError>

    init(provider: String, core: Result<FBStorage.AuthCredential, NSError>) {
        self.provider = provider
        self.core = core
    }
}

/// An identity provider's credential: its ID token (with the raw nonce it was made for) and/or
/// access token (with an OAuth 1.0 token secret).
open class OAuthCredential: AuthCredential {
    public let idToken: String?
    public let accessToken: String?
    public let secret: String?

    init(providerID: String, idToken: String?, rawNonce: String? = nil, accessToken: String?, secret: String? = nil) {
        self.idToken = idToken
        self.accessToken = accessToken
        self.secret = secret
        let core = Result { () throws(FBStorage.StorageError) in
            try FBStorage.AuthCredential.identityProvider(providerID, idToken: idToken, rawNonce: rawNonce,
                                                          accessToken: accessToken, secret: secret)
        }.mapError { AuthErrorCode.invalidCredential.error(reason: $0.message) }
        super.init(provider: providerID, core: core)
    }
}

/// The Apple SDK's provider ids.
public enum AuthProviderID: String, Sendable {
    case apple = "apple.com"
    case email = "password"
    case facebook = "facebook.com"
    case gameCenter = "gc.apple.com"
    case gitHub = "github.com"
    case google = "google.com"
    case phone = "phone"
}

open class EmailAuthProvider: NSObject {
    public static let id = "password"

    /// An email and password credential. An empty email fails its use with `missingEmail`, an
    /// empty password with `wrongPassword`, as in the Apple SDK.
    open class func credential(withEmail email: String, password: String) -> AuthCredential {
        let failure = email.isEmpty ? AuthErrorCode.missingEmail.error()
                    : password.isEmpty ? AuthErrorCode.wrongPassword.error(reason: "Missing password") : nil
        let core = failure.map { Result<FBStorage.AuthCredential, NSError>.failure($0) } ?? Result { () throws(FBStorage.StorageError) in
            try FBStorage.AuthCredential.email(email, password: password)
        }.mapError(\.authError)
        return AuthCredential(provider: id, core: core)
    }
}

open class GoogleAuthProvider: NSObject {
    public static let id = "google.com"

    /// A Google sign-in's tokens (GoogleSignIn's `idToken` and `accessToken`); an empty access
    /// token is none (the ID token is enough).
    open class func credential(withIDToken idToken: String, accessToken: String) -> AuthCredential {
        OAuthCredential(providerID: id, idToken: idToken, accessToken: accessToken.isEmpty ? nil : accessToken)
    }
}

open class FacebookAuthProvider: NSObject {
    public static let id = "facebook.com"

    open class func credential(withAccessToken accessToken: String) -> AuthCredential {
        OAuthCredential(providerID: id, idToken: nil, accessToken: accessToken)
    }
}

open class GitHubAuthProvider: NSObject {
    public static let id = "github.com"

    open class func credential(withToken token: String) -> AuthCredential {
        OAuthCredential(providerID: id, idToken: nil, accessToken: token)
    }
}

open class TwitterAuthProvider: NSObject {
    public static let id = "twitter.com"

    /// A Twitter OAuth 1.0 token and its secret.
    open class func credential(withToken token: String, secret: String) -> AuthCredential {
        OAuthCredential(providerID: id, idToken: nil, accessToken: token, secret: secret)
    }
}

/// Credentials of other OAuth identity providers (`accounts:signInWithIdp`).
open class OAuthProvider: NSObject {
    /// An ID token and the raw nonce whose SHA-256 it carries (Sign in with Apple).
    public static func credential(providerID: AuthProviderID, idToken: String, rawNonce: String,
                                  accessToken: String? = nil) -> OAuthCredential {
        OAuthCredential(providerID: providerID.rawValue, idToken: idToken, rawNonce: rawNonce, accessToken: accessToken)
    }


    public static func credential(providerID: AuthProviderID, idToken: String, accessToken: String? = nil) -> OAuthCredential {
        OAuthCredential(providerID: providerID.rawValue, idToken: idToken, accessToken: accessToken)
    }

    public static func credential(providerID: AuthProviderID, accessToken: String) -> OAuthCredential {
        OAuthCredential(providerID: providerID.rawValue, idToken: nil, accessToken: accessToken)
    }

    @available(swift, deprecated: 0.01,
               message: "Use `credential(providerID: AuthProviderID, idToken: String, accessToken: String? = nil) -> OAuthCredential` instead.")
    public static func credential(withProviderID providerID: String, idToken: String, accessToken: String?) -> OAuthCredential {
        OAuthCredential(providerID: providerID, idToken: idToken, accessToken: accessToken)
    }

    @available(swift, deprecated: 0.01,
               message: "Use `credential(providerID: AuthProviderID, accessToken: String) -> OAuthCredential` instead.")
    public static func credential(withProviderID providerID: String, accessToken: String) -> OAuthCredential {
        OAuthCredential(providerID: providerID, idToken: nil, accessToken: accessToken)
    }
}
