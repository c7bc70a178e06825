/// What an email action code is for, as Identity Toolkit's `accounts:resetPassword` without a new
/// password tells it (the SDKs' `checkActionCode`).
public struct ActionCodeInfo: Sendable, Equatable {
    /// "PASSWORD_RESET", "VERIFY_EMAIL", "EMAIL_SIGNIN", "VERIFY_AND_CHANGE_EMAIL", "RECOVER_EMAIL", …
    public let requestType: String
    /// The address the code was sent to (nil for a sign-in code, which does not reveal it).
    public let email: String?
    /// The address an email change code makes the account's.
    public let newEmail: String?
}

extension Auth {
    /// What `code` is for; the code stays usable.
    /// - Throws: `invalidArgument` for an empty code; `authInvalidActionCode`, `authExpiredActionCode`.
    public func checkActionCode(_ code: String) throws(StorageError) -> ActionCodeInfo {
        try runBlocking { done throws(StorageError) in try startCheckActionCode(code, done) }
    }

    public func checkActionCode(_ code: String, completion: @escaping StorageCompletion<ActionCodeInfo>) throws(StorageError) {
        try runAsync({ done throws(StorageError) in try startCheckActionCode(code, done) }, completion: completion)
    }

    private func startCheckActionCode(_ code: String, _ done: @escaping StorageCompletion<ActionCodeInfo>) throws(StorageError) {
        guard !code.isEmpty else { throw .invalidArgument("The action code is empty") }
        let call = "check action code"
        try postAccounts("resetPassword", [("oobCode", .string(code))], call: call) { result in
            done(result.flatMap { answer in
                guard let requestType = answer["requestType"]?.stringValue else {
                    return .failure(StorageError(code: .unknown, message: "Firebase Auth \(call): the answer names no request type"))
                }
                return .success(ActionCodeInfo(requestType: requestType, email: answer["email"]?.stringValue,
                                               newEmail: answer["newEmail"]?.stringValue))
            })
        }
    }
}
