import FBStorage
import Foundation

/// The Apple SDK's error domain and user-info keys of Firebase Auth errors.
open class AuthErrors: NSObject {
    /// The domain of every `NSError` this module hands out.
    public static let domain: String = "FIRAuthErrorDomain"
    /// The user-info key of the error's short name, e.g. "ERROR_WRONG_PASSWORD".
    public static let userInfoNameKey: String = "FIRAuthErrorUserInfoNameKey"
}

/// The codes of `AuthErrors.domain` errors that the flows of this module produce, with the Apple
/// SDK's raw values (`AuthErrorCode(rawValue: error.code)` reads them as on Apple platforms).
public enum AuthErrorCode: Int, Sendable {
    case invalidCustomToken = 17000
    case customTokenMismatch = 17002
    case invalidCredential = 17004
    case userDisabled = 17005
    case operationNotAllowed = 17006
    case emailAlreadyInUse = 17007
    case invalidEmail = 17008
    case wrongPassword = 17009
    case tooManyRequests = 17010
    case userNotFound = 17011
    case requiresRecentLogin = 17014
    case invalidUserToken = 17017
    case networkError = 17020
    case userTokenExpired = 17021
    case invalidAPIKey = 17023
    case weakPassword = 17026
    case missingEmail = 17034
    case nullUser = 17067
    case internalError = 17999
    case malformedJWT = 18000

    /// The Apple SDK's description.
    var errorDescription: String {
        switch self {
        case .invalidCustomToken: "The custom token format is incorrect. Please check the documentation."
        case .customTokenMismatch: "The custom token corresponds to a different audience."
        case .invalidCredential: "The supplied auth credential is malformed or has expired."
        case .userDisabled: "The user account has been disabled by an administrator."
        case .operationNotAllowed:
            "The given sign-in provider is disabled for this Firebase project. Enable it in the Firebase console, "
                + "under the sign-in method tab of the Auth section."
        case .emailAlreadyInUse: "The email address is already in use by another account."
        case .invalidEmail: "The email address is badly formatted."
        case .wrongPassword: "The password is invalid or the user does not have a password."
        case .tooManyRequests: "We have blocked all requests from this device due to unusual activity. Try again later."
        case .userNotFound: "There is no user record corresponding to this identifier. The user may have been deleted."
        case .requiresRecentLogin:
            "This operation is sensitive and requires recent authentication. Log in again before retrying this request."
        case .invalidUserToken:
            "This user's credential isn't valid for this project. This can happen if the user's token has been "
                + "tampered with, or if the user doesn't belong to the project associated with the API key used in your request."
        case .networkError: "Network error (such as timeout, interrupted connection or unreachable host) has occurred."
        case .userTokenExpired: "The user's credential is no longer valid. The user must sign in again."
        case .invalidAPIKey: "An invalid API Key was supplied in the request."
        case .weakPassword: "The password must be 6 characters long or more."
        case .missingEmail: "An email address must be provided."
        case .nullUser:
            "A null user object was provided as the argument for an operation which requires a non-null user object."
        case .internalError: "An internal error has occurred, print and inspect the error details for more information."
        case .malformedJWT: "Failed to parse JWT. Check the userInfo dictionary for the full token."
        }
    }

    /// The Apple SDK's short name (`AuthErrors.userInfoNameKey`).
    var errorCodeString: String {
        switch self {
        case .invalidCustomToken: "ERROR_INVALID_CUSTOM_TOKEN"
        case .customTokenMismatch: "ERROR_CUSTOM_TOKEN_MISMATCH"
        case .invalidCredential: "ERROR_INVALID_CREDENTIAL"
        case .userDisabled: "ERROR_USER_DISABLED"
        case .operationNotAllowed: "ERROR_OPERATION_NOT_ALLOWED"
        case .emailAlreadyInUse: "ERROR_EMAIL_ALREADY_IN_USE"
        case .invalidEmail: "ERROR_INVALID_EMAIL"
        case .wrongPassword: "ERROR_WRONG_PASSWORD"
        case .tooManyRequests: "ERROR_TOO_MANY_REQUESTS"
        case .userNotFound: "ERROR_USER_NOT_FOUND"
        case .requiresRecentLogin: "ERROR_REQUIRES_RECENT_LOGIN"
        case .invalidUserToken: "ERROR_INVALID_USER_TOKEN"
        case .networkError: "ERROR_NETWORK_REQUEST_FAILED"
        case .userTokenExpired: "ERROR_USER_TOKEN_EXPIRED"
        case .invalidAPIKey: "ERROR_INVALID_API_KEY"
        case .weakPassword: "ERROR_WEAK_PASSWORD"
        case .missingEmail: "ERROR_MISSING_EMAIL"
        case .nullUser: "ERROR_NULL_USER"
        case .internalError: "ERROR_INTERNAL_ERROR"
        case .malformedJWT: "ERROR_MALFORMED_JWT"
        }
    }

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
        case .authUserTokenExpired: self = serverCode == "INVALID_ID_TOKEN" ? .invalidUserToken : .userTokenExpired
        case .authInvalidRefreshToken: self = .invalidUserToken
        case .authNoUser: self = .nullUser
        case .authRequiresRecentLogin: self = .requiresRecentLogin
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
