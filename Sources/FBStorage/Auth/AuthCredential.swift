/// What a user proves who they are with, for `Auth.signIn(with:)`, `link(with:)` and
/// `reauthenticate(with:)`: an email and password, or an identity provider's tokens (Google's
/// ID token, another OAuth provider's ID or access token, Apple's ID token with its raw nonce,
/// Twitter's OAuth 1.0 token and secret), as the SDKs' `AuthCredential`.
public struct AuthCredential: Sendable, Equatable {
    enum Kind: Sendable, Equatable {
        case password(email: String, password: String)
        case identityProvider(providerID: String, tokens: ProviderTokens)
    }

    /// An identity provider's tokens, as the SDKs' `OAuthCredential` holds them.
    struct ProviderTokens: Sendable, Equatable {
        var idToken: String?
        /// The nonce whose SHA-256 the ID token carries (Sign in with Apple), unhashed.
        var rawNonce: String?
        var accessToken: String?
        /// An OAuth 1.0 token secret, paired with the access token (Twitter).
        var secret: String?
    }

    let kind: Kind

    /// "password" or the identity provider's id ("google.com", …).
    public var providerID: String {
        switch kind {
        case .password: "password"
        case .identityProvider(let providerID, _): providerID
        }
    }

    /// An email and password credential (`EmailAuthProvider.credential`).
    /// - Throws: `invalidArgument` for an empty email or password.
    public static func email(_ email: String, password: String) throws(StorageError) -> AuthCredential {
        guard !email.isEmpty else { throw .invalidArgument("The email address is empty") }
        guard !password.isEmpty else { throw .invalidArgument("The password is empty") }
        return AuthCredential(kind: .password(email: email, password: password))
    }

    /// An identity provider's credential (`GoogleAuthProvider.credential`,
    /// `OAuthProvider.credential`, `TwitterAuthProvider.credential`): its ID token, its access
    /// token, or both; with the ID token the raw nonce it was made for (Sign in with Apple), with
    /// the access token an OAuth 1.0 token secret (Twitter).
    /// - Throws: `invalidArgument` for an empty or "password" provider id, neither token, an
    ///   empty value, a nonce without an ID token or a secret without an access token.
    public static func identityProvider(_ providerID: String, idToken: String?, rawNonce: String? = nil,
                                        accessToken: String?, secret: String? = nil) throws(StorageError) -> AuthCredential {
        guard !providerID.isEmpty, providerID != "password" else {
            throw .invalidArgument("The provider id must name an identity provider (\"google.com\", …)")
        }
        guard idToken != nil || accessToken != nil else {
            throw .invalidArgument("A \(providerID) credential needs an ID token or an access token")
        }
        guard [idToken, rawNonce, accessToken, secret].allSatisfy({ $0?.isEmpty != true }) else {
            throw .invalidArgument("A \(providerID) credential's token, nonce or secret is empty")
        }
        guard rawNonce == nil || idToken != nil else { throw .invalidArgument("A raw nonce goes with an ID token, and there is none") }
        guard secret == nil || accessToken != nil else { throw .invalidArgument("A token secret goes with an access token, and there is none") }
        return AuthCredential(kind: .identityProvider(providerID: providerID, tokens: ProviderTokens(
            idToken: idToken, rawNonce: rawNonce, accessToken: accessToken, secret: secret)))
    }

    /// The Identity Toolkit call that proves this credential and its fields (an ID token is
    /// added beside them to link or reauthenticate).
    var request: (method: String, fields: [(String, JSONValue)]) {
        switch kind {
        case .password(let email, let password):
            return ("signInWithPassword", [("email", .string(email)), ("password", .string(password))])
        case .identityProvider(let providerID, let tokens):
            // The SDKs' form for a credential obtained outside a redirect: the tokens in
            // `postBody`, `requestUri` any absolute URI.
            let postBody = [("providerId", providerID), ("id_token", tokens.idToken), ("nonce", tokens.rawNonce),
                            ("access_token", tokens.accessToken), ("oauth_token_secret", tokens.secret)]
                .compactMap { name, value in value.map { (name, $0) } }
            let encoded = postBody.map { "\($0.0)=\(PercentEscaping.queryValue($0.1))" }.joined(separator: "&")
            return ("signInWithIdp", [("requestUri", .string("http://localhost")), ("postBody", .string(encoded)),
                                      ("returnIdpCredential", .bool(true))])
        }
    }

    /// The call that proves this credential again for the signed-in user: a provider's with
    /// `autoCreate: false`, as the Apple SDK sends it, so that a credential of nobody's account
    /// never makes one.
    var reauthenticationRequest: (method: String, fields: [(String, JSONValue)]) {
        guard case .identityProvider = kind else { return request }
        return (request.method, request.fields + [("autoCreate", .bool(false))])
    }

    /// The call that links this credential to the signed-in user: email and password through
    /// `signUp` (as the SDKs do), a provider through `signInWithIdp`.
    var linkRequest: (method: String, fields: [(String, JSONValue)]) {
        guard case .password(let email, let password) = kind else { return request }
        return ("signUp", [("email", .string(email)), ("password", .string(password))])
    }
}

/// Credentials stay out of logs: only the provider is shown.
extension AuthCredential: CustomStringConvertible {
    public var description: String { "AuthCredential(\(providerID))" }
}
