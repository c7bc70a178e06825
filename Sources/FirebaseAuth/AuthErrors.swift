import FBStorage
import Foundation

/// The Apple SDK's error domain and user-info keys of Firebase Auth errors.
open class AuthErrors: NSObject {
    /// The domain of every `NSError` this module hands out.
    public static let domain: String = "FIRAuthErrorDomain"
    /// The user-info key of the error's short name, e.g. "ERROR_WRONG_PASSWORD".
    public static let userInfoNameKey: String = "FIRAuthErrorUserInfoNameKey"
    /// The user-info key of the email address of an account that exists already.
    public static let userInfoEmailKey: String = "FIRAuthErrorUserInfoEmailKey"
    /// The user-info key of an updated credential to recover with.
    public static let userInfoUpdatedCredentialKey: String = "FIRAuthErrorUserInfoUpdatedCredentialKey"
    /// The user-info key of the multi-factor resolver of a `secondFactorRequired` error.
    public static let userInfoMultiFactorResolverKey: String = "FIRAuthErrorUserInfoMultiFactorResolverKey"
}

extension AuthErrorCode {
    /// An `NSError` of this code in `AuthErrors.domain`; `reason` (the detail) goes under
    /// `NSLocalizedFailureReasonErrorKey`.
    func error(reason: String? = nil) -> NSError {
        var userInfo: [String: Any] = [NSLocalizedDescriptionKey: errorDescription,
                                       AuthErrors.userInfoNameKey: errorCodeString]
        if let reason { userInfo[NSLocalizedFailureReasonErrorKey] = reason }
        return NSError(domain: AuthErrors.domain, code: rawValue, userInfo: userInfo)
    }

    /// The Apple SDK's code for a core error. The core folds a few server codes together that the
    /// Apple SDK tells apart; the server's own code (in the response body) separates them again.
    init(_ error: FBStorage.StorageError) {
        let serverCode = Self.serverCode(error.serverResponse)
        switch error.code {
        case .authInvalidAPIKey: self = .invalidAPIKey
        case .authInvalidEmail: self = .invalidEmail
        case .authWrongPassword: self = serverCode == "INVALID_LOGIN_CREDENTIALS" ? .invalidCredential : .wrongPassword
        case .authUserNotFound: self = .userNotFound
        case .authEmailAlreadyInUse: self = .emailAlreadyInUse
        case .authWeakPassword: self = .weakPassword
        case .authUserDisabled: self = .userDisabled
        case .authInvalidCustomToken: self = serverCode == "CREDENTIAL_MISMATCH" ? .customTokenMismatch : .invalidCustomToken
        case .authTooManyRequests: self = .tooManyRequests
        case .authOperationNotAllowed: self = .operationNotAllowed
        case .authUserTokenExpired: self = .userTokenExpired
        case .authInvalidRefreshToken, .authInvalidUserToken: self = .invalidUserToken
        case .authNoUser: self = .nullUser
        case .authRequiresRecentLogin: self = .requiresRecentLogin
        case .authCredentialAlreadyInUse: self = .credentialAlreadyInUse
        case .authProviderAlreadyLinked: self = .providerAlreadyLinked
        case .authInvalidActionCode: self = .invalidActionCode
        case .authExpiredActionCode: self = .expiredActionCode
        case .authInvalidCredential: self = .invalidCredential
        case .authAccountExistsWithDifferentCredential: self = .accountExistsWithDifferentCredential
        case .authUserMismatch: self = .userMismatch
        // The core's invalidArgument for the action code settings the server refused.
        case .invalidArgument where serverCode == "INVALID_CONTINUE_URI": self = .invalidContinueURI
        case .invalidArgument where serverCode == "MISSING_CONTINUE_URI": self = .missingContinueURI
        case .invalidArgument where serverCode == "UNAUTHORIZED_DOMAIN": self = .unauthorizedDomain
        // Transport failures (no HTTP answer) retried until the retry time ran out.
        case .retryLimitExceeded: self = .networkError
        case .unknown where error.httpStatus == nil: self = .networkError
        default: self = .internalError
        }
    }

    /// The Identity Toolkit code ("EMAIL_EXISTS") at the start of `error.message` in a response body.
    private static func serverCode(_ body: String?) -> String? {
        guard let data = body?.data(using: .utf8),
              let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
              let message = (object["error"] as? [String: Any])?["message"] as? String else { return nil }
        return String(message.prefix { $0 != " " && $0 != ":" })
    }
}

extension FBStorage.StorageError {
    /// This core error as the Apple SDK's `NSError`, the core's message as the failure reason.
    var authError: NSError { AuthErrorCode(self).error(reason: message) }
}
