import Foundation

/// What a sign-in gives: the signed-in user.
open class AuthDataResult: NSObject {
    /// The signed-in user (the same object as `Auth.currentUser`).
    public let user: User

    init(user: User) { self.user = user }
}
