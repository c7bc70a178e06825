import FBStorage
import Foundation

/// What a sign-in gives: the signed-in user, and what the sign-in said beyond it.
open class AuthDataResult: NSObject {
    /// The signed-in user (the same object as `Auth.currentUser`).
    public let user: User
    /// Whether the sign-in made the account, and the identity provider's profile of the user.
    public let additionalUserInfo: AdditionalUserInfo?

    init(user: User, additionalUserInfo: AdditionalUserInfo?) {
        self.user = user
        self.additionalUserInfo = additionalUserInfo
    }
}

/// What a sign-in's answer says beyond the user, as the Apple SDK's.
open class AdditionalUserInfo: NSObject {
    /// The provider signed in with ("password", "google.com", …; "" when not known).
    public let providerID: String
    /// The identity provider's profile of the user (its JSON object), nil without a provider.
    public let profile: [String: Any]?
    /// The user's name at the provider (Twitter's handle, GitHub's login).
    public let username: String?
    public let isNewUser: Bool

    init(providerID: String, profile: [String: Any]?, username: String?, isNewUser: Bool) {
        self.providerID = providerID
        self.profile = profile
        self.username = username
        self.isNewUser = isNewUser
    }

    /// The core's account of a sign-in's answer.
    convenience init(_ info: FBStorage.AdditionalUserInfo) {
        let profile = info.profileJSON.flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        self.init(providerID: info.providerID ?? "", profile: profile, username: info.username, isNewUser: info.isNewUser)
    }
}
