/// One sign-in method of an account ("password", "google.com", …) as Identity Toolkit's
/// `providerUserInfo` lists it: the SDKs' `UserInfo` of `providerData`.
public struct AuthProviderInfo: Sendable, Equatable {
    public let providerID: String
    /// The user's id at the provider (the email address for "password").
    public let uid: String
    public let email: String?
    public let displayName: String?
    public let photoURL: String?
    public let phoneNumber: String?

    /// The entries of a `providerUserInfo` array (an answer's, or the persistence file's, which
    /// keeps the same names); entries without a provider id are skipped.
    static func list(_ value: JSONValue?) -> [AuthProviderInfo]? {
        value?.arrayValue?.compactMap { entry in
            guard let object = entry.objectValue, let providerID = object["providerId"]?.stringValue,
                  let uid = object["rawId"]?.stringValue ?? object["federatedId"]?.stringValue ?? object["email"]?.stringValue else {
                return nil
            }
            return AuthProviderInfo(providerID: providerID, uid: uid, email: object["email"]?.stringValue,
                                    displayName: object["displayName"]?.stringValue, photoURL: object["photoUrl"]?.stringValue,
                                    phoneNumber: object["phoneNumber"]?.stringValue)
        }
    }

    /// As `providerUserInfo` names it (for the persistence file).
    var json: JSONValue {
        var members: [String: JSONValue] = ["providerId": .string(providerID), "rawId": .string(uid)]
        for (name, value) in [("email", email), ("displayName", displayName), ("photoUrl", photoURL), ("phoneNumber", phoneNumber)] {
            if let value { members[name] = .string(value) }
        }
        return .object(members)
    }
}
