/// What a user proves who they are with, for `Auth.signIn(with:)`, `link(with:)` and
/// `reauthenticate(with:)`: an email and password, or an identity provider's token (Google's
/// ID token, another OAuth provider's ID or access token), as the SDKs' `AuthCredential`.
public struct AuthCredential: Sendable, Equatable {
    enum Kind: Sendable, Equatable {
        case password(email: String, password: String)
        case identityProvider(providerID: String, idToken: String?, accessToken: String?)
    }

    let kind: Kind

    /// "password" or the identity provider's id ("google.com", …).
    public var providerID: String {
        switch kind {
        case .password: "password"
        case .identityProvider(let providerID, _, _): providerID
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
    /// `OAuthProvider.credential`): its ID token, its access token, or both.
    /// - Throws: `invalidArgument` for an empty or "password" provider id, neither token, or an
    ///   empty token.
    public static func identityProvider(_ providerID: String, idToken: String?, accessToken: String?) throws(StorageError) -> AuthCredential {
        guard !providerID.isEmpty, providerID != "password" else {
            throw .invalidArgument("The provider id must name an identity provider (\"google.com\", …)")
        }
        guard idToken != nil || accessToken != nil else {
            throw .invalidArgument("A \(providerID) credential needs an ID token or an access token")
        }
        guard idToken?.isEmpty != true, accessToken?.isEmpty != true else {
            throw .invalidArgument("A \(providerID) credential's token is empty")
        }
        return AuthCredential(kind: .identityProvider(providerID: providerID, idToken: idToken, accessToken: accessToken))
    }

    /// The Identity Toolkit call that proves this credential and its fields (an ID token is
    /// added beside them to link or reauthenticate).
    var request: (method: String, fields: [(String, JSONValue)]) {
        switch kind {
        case .password(let email, let password):
            return ("signInWithPassword", [("email", .string(email)), ("password", .string(password))])
        case .identityProvider(let providerID, let idToken, let accessToken):
            // The SDKs' form for a credential obtained outside a redirect: the tokens in
            // `postBody`, `requestUri` any absolute URI.
            var postBody = [("providerId", providerID)]
            if let idToken { postBody.append(("id_token", idToken)) }
            if let accessToken { postBody.append(("access_token", accessToken)) }
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
