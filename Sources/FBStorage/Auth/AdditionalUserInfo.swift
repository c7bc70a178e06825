/// What a sign-in's answer says beyond the user, as the SDKs' `AdditionalUserInfo`: whether the
/// account was made by it, and the identity provider's profile of the user. Only the user a
/// sign-in, a reauthentication or an identity provider's link answers carries it
/// (`AuthUser.additionalUserInfo`), as in the SDKs; a password's link and `Auth.currentUser` never do.
public struct AdditionalUserInfo: Sendable, Equatable {
    /// The provider the user signed in with ("password", "google.com", "anonymous", "custom", …).
    public let providerID: String?
    public let isNewUser: Bool
    /// The identity provider's profile of the user, a JSON object as Identity Toolkit relays it
    /// (`rawUserInfo`); nil for sign-ins without a provider.
    public let profileJSON: String?
    /// The user's name at the provider (`screenName`: Twitter's handle, GitHub's login).
    public let username: String?

    /// The additional information of `method`'s answer for `user`: signUp always makes an
    /// account, signInWithPassword never; the others say so (`isNewUser`).
    init(answer: [String: JSONValue], method: String, user: AuthUser) {
        providerID = answer["providerId"]?.stringValue ?? user.signInProvider
        switch method {
        case "signUp": isNewUser = true
        case "signInWithPassword": isNewUser = false
        default: if case .bool(true)? = answer["isNewUser"] { isNewUser = true } else { isNewUser = false }
        }
        profileJSON = answer["rawUserInfo"]?.stringValue
        username = answer["screenName"]?.stringValue
    }
}
