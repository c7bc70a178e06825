import FBStorage
import Foundation

/// A user's data at one identity provider, as in the Apple SDK (`User.providerData`; `User` is one too).
public protocol UserInfo: NSObjectProtocol {
    var providerID: String { get }
    var uid: String { get }
    var displayName: String? { get }
    var photoURL: URL? { get }
    var email: String? { get }
    var phoneNumber: String? { get }
}

/// One entry of `User.providerData`.
final class ProviderUserInfo: NSObject, UserInfo {
    let providerID: String
    let uid: String
    let displayName: String?
    let photoURL: URL?
    let email: String?
    let phoneNumber: String?

    init(_ info: AuthProviderInfo) {
        providerID = info.providerID
        uid = info.uid
        displayName = info.displayName
        photoURL = info.photoURL.flatMap(URL.init(string:))
        email = info.email
        phoneNumber = info.phoneNumber
    }
}

/// When the account was created and last signed in, as in the Apple SDK.
open class UserMetadata: NSObject {
    public let lastSignInDate: Date?
    public let creationDate: Date?

    init(lastSignInDate: Date?, creationDate: Date?) {
        self.lastSignInDate = lastSignInDate
        self.creationDate = creationDate
    }
}

extension User: UserInfo {
    /// The user's sign-in methods, read after each sign-in, link and unlink (as the Apple SDK does)
    /// and on `reload()`, and kept with the session.
    public var providerData: [UserInfo] { current.providers.map(ProviderUserInfo.init) }

    public var metadata: UserMetadata {
        let user = current
        return UserMetadata(lastSignInDate: user.lastSignInTime.map(Date.init(timeIntervalSince1970:)),
                            creationDate: user.creationTime.map(Date.init(timeIntervalSince1970:)))
    }

    /// Phone sign-in is not available on Linux: always nil.
    public var phoneNumber: String? { nil }
}
