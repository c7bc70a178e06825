import FBStorage
import Foundation

/// The Apple SDK's kinds of email action codes.
public enum ActionCodeOperation: Int, Sendable {
    case unknown = 0
    case passwordReset = 1
    case verifyEmail = 2
    case recoverEmail = 3
    case emailLink = 4
    case verifyAndChangeEmail = 5
    case revertSecondFactorAddition = 6

    init(requestType: String) {
        switch requestType {
        case "PASSWORD_RESET": self = .passwordReset
        case "VERIFY_EMAIL": self = .verifyEmail
        case "RECOVER_EMAIL": self = .recoverEmail
        case "EMAIL_SIGNIN": self = .emailLink
        case "VERIFY_AND_CHANGE_EMAIL": self = .verifyAndChangeEmail
        case "REVERT_SECOND_FACTOR_ADDITION": self = .revertSecondFactorAddition
        default: self = .unknown
        }
    }
}

/// What an action code is for (`Auth.checkActionCode(_:)`), as in the Apple SDK: for an email
/// change, `email` is the new address and `previousEmail` the one it replaces.
open class ActionCodeInfo: NSObject {
    public let operation: ActionCodeOperation
    /// The address the code was sent to ("" for a sign-in code, whose answer does not reveal it).
    public let email: String
    public let previousEmail: String?

    init(_ info: FBStorage.ActionCodeInfo) {
        operation = ActionCodeOperation(requestType: info.requestType)
        if let newEmail = info.newEmail {
            email = newEmail
            previousEmail = info.email
        } else {
            email = info.email ?? ""
            previousEmail = nil
        }
    }
}

extension Auth {
    /// What `code` is for; the code stays usable.
    public func checkActionCode(_ code: String, completion: @escaping (ActionCodeInfo?, Error?) -> Void) {
        run({ [core] done throws(FBStorage.StorageError) in try core.checkActionCode(code, completion: done) },
            Self.pair(completion), transform: ActionCodeInfo.init)
    }

    public func checkActionCode(_ code: String) async throws -> ActionCodeInfo {
        try await awaiting { checkActionCode(code, completion: $0) }
    }
}
