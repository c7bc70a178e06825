/// Every code of `AuthErrors.domain` errors in the Apple SDK, with its raw value, so that
/// `AuthErrorCode(rawValue: error.code)` and `switch` over it read as on Apple platforms. The flows
/// of this module produce a subset (see `init(_:)` in AuthErrors.swift); the rest exist so that code
/// written against the Apple SDK (a `case .secondFactorRequired:`) compiles unchanged.
public enum AuthErrorCode: Int, Sendable, CaseIterable {
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
    case accountExistsWithDifferentCredential = 17012
    case requiresRecentLogin = 17014
    case providerAlreadyLinked = 17015
    case noSuchProvider = 17016
    case invalidUserToken = 17017
    case networkError = 17020
    case userTokenExpired = 17021
    case invalidAPIKey = 17023
    case userMismatch = 17024
    case credentialAlreadyInUse = 17025
    case weakPassword = 17026
    case appNotAuthorized = 17028
    case expiredActionCode = 17029
    case invalidActionCode = 17030
    case invalidMessagePayload = 17031
    case invalidSender = 17032
    case invalidRecipientEmail = 17033
    case missingEmail = 17034
    case missingIosBundleID = 17036
    case missingAndroidPackageName = 17037
    case unauthorizedDomain = 17038
    case invalidContinueURI = 17039
    case missingContinueURI = 17040
    case missingPhoneNumber = 17041
    case invalidPhoneNumber = 17042
    case missingVerificationCode = 17043
    case invalidVerificationCode = 17044
    case missingVerificationID = 17045
    case invalidVerificationID = 17046
    case missingAppCredential = 17047
    case invalidAppCredential = 17048
    case sessionExpired = 17051
    case quotaExceeded = 17052
    case missingAppToken = 17053
    case notificationNotForwarded = 17054
    case appNotVerified = 17055
    case captchaCheckFailed = 17056
    case webContextAlreadyPresented = 17057
    case webContextCancelled = 17058
    case appVerificationUserInteractionFailure = 17059
    case invalidClientID = 17060
    case webNetworkRequestFailed = 17061
    case webInternalError = 17062
    case webSignInUserInteractionFailure = 17063
    case localPlayerNotAuthenticated = 17066
    case nullUser = 17067
    case dynamicLinkNotActivated = 17068
    case invalidProviderID = 17071
    case tenantIDMismatch = 17072
    case unsupportedTenantOperation = 17073
    case invalidDynamicLinkDomain = 17074
    case rejectedCredential = 17075
    case gameKitNotLinked = 17076
    case secondFactorRequired = 17078
    case missingMultiFactorSession = 17081
    case missingMultiFactorInfo = 17082
    case invalidMultiFactorSession = 17083
    case multiFactorInfoNotFound = 17084
    case adminRestrictedOperation = 17085
    case unverifiedEmail = 17086
    case secondFactorAlreadyEnrolled = 17087
    case maximumSecondFactorCountExceeded = 17088
    case unsupportedFirstFactor = 17089
    case emailChangeNeedsVerification = 17090
    case missingClientIdentifier = 17093
    case missingOrInvalidNonce = 17094
    case blockingCloudFunctionError = 17105
    case recaptchaNotEnabled = 17200
    case missingRecaptchaToken = 17201
    case invalidRecaptchaToken = 17202
    case invalidRecaptchaAction = 17203
    case missingClientType = 17204
    case missingRecaptchaVersion = 17205
    case invalidRecaptchaVersion = 17206
    case invalidReqType = 17207
    case recaptchaSDKNotLinked = 17208
    case recaptchaSiteKeyMissing = 17209
    case recaptchaActionCreationFailed = 17210
    case keychainError = 17995
    case internalError = 17999
    case malformedJWT = 18000
}

extension AuthErrorCode {
    /// The Apple SDK's short name (`AuthErrors.userInfoNameKey`) and description.
    private var text: (name: String, description: String) {
        switch self {
        case .invalidCustomToken:
            ("ERROR_INVALID_CUSTOM_TOKEN",
             "The custom token format is incorrect. Please check the documentation.")
        case .customTokenMismatch:
            ("ERROR_CUSTOM_TOKEN_MISMATCH",
             "The custom token corresponds to a different audience.")
        case .invalidCredential:
            ("ERROR_INVALID_CREDENTIAL",
             "The supplied auth credential is malformed or has expired.")
        case .userDisabled: ("ERROR_USER_DISABLED", "The user account has been disabled by an administrator.")
        case .operationNotAllowed:
            ("ERROR_OPERATION_NOT_ALLOWED",
             "The given sign-in provider is disabled for this Firebase project. Enable it in the Firebase console, under the sign-in method tab of the Auth section.")
        case .emailAlreadyInUse:
            ("ERROR_EMAIL_ALREADY_IN_USE",
             "The email address is already in use by another account.")
        case .invalidEmail: ("ERROR_INVALID_EMAIL", "The email address is badly formatted.")
        case .wrongPassword: ("ERROR_WRONG_PASSWORD", "The password is invalid or the user does not have a password.")
        case .tooManyRequests:
            ("ERROR_TOO_MANY_REQUESTS",
             "We have blocked all requests from this device due to unusual activity. Try again later.")
        case .userNotFound:
            ("ERROR_USER_NOT_FOUND",
             "There is no user record corresponding to this identifier. The user may have been deleted.")
        case .accountExistsWithDifferentCredential:
            ("ERROR_ACCOUNT_EXISTS_WITH_DIFFERENT_CREDENTIAL",
             "An account already exists with the same email address but different sign-in credentials. Sign in using a provider associated with this email address.")
        case .requiresRecentLogin:
            ("ERROR_REQUIRES_RECENT_LOGIN",
             "This operation is sensitive and requires recent authentication. Log in again before retrying this request.")
        case .providerAlreadyLinked:
            ("ERROR_PROVIDER_ALREADY_LINKED",
             "[ERROR_PROVIDER_ALREADY_LINKED] - User can only be linked to one identity for the given provider.")
        case .noSuchProvider: ("ERROR_NO_SUCH_PROVIDER", "User was not linked to an account with the given provider.")
        case .invalidUserToken:
            ("ERROR_INVALID_USER_TOKEN",
             "This user's credential isn't valid for this project. This can happen if the user's token has been tampered with, or if the user doesn’t belong to the project associated with the API key used in your request.")
        case .networkError:
            ("ERROR_NETWORK_REQUEST_FAILED",
             "Network error (such as timeout, interrupted connection or unreachable host) has occurred.")
        case .userTokenExpired:
            ("ERROR_USER_TOKEN_EXPIRED",
             "The user's credential is no longer valid. The user must sign in again.")
        case .invalidAPIKey: ("ERROR_INVALID_API_KEY", "An invalid API Key was supplied in the request.")
        case .userMismatch:
            ("ERROR_USER_MISMATCH",
             "The supplied credentials do not correspond to the previously signed in user.")
        case .credentialAlreadyInUse:
            ("ERROR_CREDENTIAL_ALREADY_IN_USE",
             "This credential is already associated with a different user account.")
        case .weakPassword: ("ERROR_WEAK_PASSWORD", "The password must be 6 characters long or more.")
        case .appNotAuthorized:
            ("ERROR_APP_NOT_AUTHORIZED",
             "This app is not authorized to use Firebase Authentication with the provided API key. Review your key configuration in the Google API console and ensure that it accepts requests from your app's bundle ID.")
        case .expiredActionCode: ("ERROR_EXPIRED_ACTION_CODE", "The action code has expired.")
        case .invalidActionCode:
            ("ERROR_INVALID_ACTION_CODE",
             "The action code is invalid. This can happen if the code is malformed, expired, or has already been used.")
        case .invalidMessagePayload:
            ("ERROR_INVALID_MESSAGE_PAYLOAD",
             "The action code is invalid. This can happen if the code is malformed, expired, or has already been used.")
        case .invalidSender:
            ("ERROR_INVALID_SENDER",
             "The email template corresponding to this action contains invalid characters in its message. Please fix by going to the Auth email templates section in the Firebase Console.")
        case .invalidRecipientEmail:
            ("ERROR_INVALID_RECIPIENT_EMAIL",
             "The action code is invalid. This can happen if the code is malformed, expired, or has already been used.")
        case .missingEmail: ("ERROR_MISSING_EMAIL", "An email address must be provided.")
        case .missingIosBundleID:
            ("ERROR_MISSING_IOS_BUNDLE_ID",
             "An iOS Bundle ID must be provided if an App Store ID is provided.")
        case .missingAndroidPackageName:
            ("ERROR_MISSING_ANDROID_PKG_NAME",
             "An Android Package Name must be provided if the Android App is required to be installed.")
        case .unauthorizedDomain:
            ("ERROR_UNAUTHORIZED_DOMAIN",
             "The domain of the continue URL is not allowlisted. Please allowlist the domain in the Firebase console.")
        case .invalidContinueURI: ("ERROR_INVALID_CONTINUE_URI", "The continue URL provided in the request is invalid.")
        case .missingContinueURI: ("ERROR_MISSING_CONTINUE_URI", "A continue URL must be provided in the request.")
        case .missingPhoneNumber:
            ("ERROR_MISSING_PHONE_NUMBER",
             "To send verification codes, provide a phone number for the recipient.")
        case .invalidPhoneNumber:
            ("ERROR_INVALID_PHONE_NUMBER",
             "The format of the phone number provided is incorrect. Please enter the phone number in a format that can be parsed into E.164 format. E.164 phone numbers are written in the format [+][country code][subscriber number including area code].")
        case .missingVerificationCode:
            ("ERROR_MISSING_VERIFICATION_CODE",
             "The phone auth credential was created with an empty SMS verification Code.")
        case .invalidVerificationCode:
            ("ERROR_INVALID_VERIFICATION_CODE",
             "The multifactor verification code used to create the auth credential is invalid. Re-collect the verification code and be sure to use the verification code provided by the user.")
        case .missingVerificationID:
            ("ERROR_MISSING_VERIFICATION_ID",
             "The phone auth credential was created with an empty verification ID.")
        case .invalidVerificationID:
            ("ERROR_INVALID_VERIFICATION_ID",
             "The verification ID used to create the phone auth credential is invalid.")
        case .missingAppCredential:
            ("MISSING_APP_CREDENTIAL",
             "The phone verification request is missing an APNs Device token. Firebase Auth automatically detects APNs Device Tokens, however, if method swizzling is disabled, the APNs token must be set via the APNSToken property on FIRAuth or by calling setAPNSToken:type on FIRAuth.")
        case .invalidAppCredential:
            ("INVALID_APP_CREDENTIAL",
             "The APNs device token provided is either incorrect or does not match the private certificate uploaded to the Firebase Console.")
        case .sessionExpired:
            ("ERROR_SESSION_EXPIRED",
             "The SMS code has expired. Please re-send the verification code to try again.")
        case .quotaExceeded: ("ERROR_QUOTA_EXCEEDED", "The quota for this operation has been exceeded.")
        case .missingAppToken:
            ("ERROR_MISSING_APP_TOKEN",
             "There seems to be a problem with your project's Firebase phone number authentication set-up, please make sure to follow the instructions found at https://firebase.google.com/docs/auth/ios/phone-auth")
        case .notificationNotForwarded:
            ("ERROR_NOTIFICATION_NOT_FORWARDED",
             "If app delegate swizzling is disabled, remote notifications received by UIApplicationDelegate need tobe forwarded to FirebaseAuth's canHandleNotificaton method.")
        case .appNotVerified:
            ("ERROR_APP_NOT_VERIFIED",
             "Firebase could not retrieve the silent push notification and therefore could not verify your app. Ensure that you configured your app correctly to receive push notifications.")
        case .captchaCheckFailed:
            ("ERROR_CAPTCHA_CHECK_FAILED",
             "The reCAPTCHA response token provided is either invalid, expired or already")
        case .webContextAlreadyPresented:
            ("ERROR_WEB_CONTEXT_ALREADY_PRESENTED",
             "User interaction is still ongoing, another view cannot be presented.")
        case .webContextCancelled: ("ERROR_WEB_CONTEXT_CANCELLED", "The interaction was cancelled by the user.")
        case .appVerificationUserInteractionFailure:
            ("ERROR_APP_VERIFICATION_FAILED",
             "The app verification process has failed, print and inspect the error details for more information")
        case .invalidClientID:
            ("ERROR_INVALID_CLIENT_ID",
             "The OAuth client ID provided is either invalid or does not match the specified API key.")
        case .webNetworkRequestFailed:
            ("ERROR_WEB_NETWORK_REQUEST_FAILED",
             "A network error (such as timeout, interrupted connection, or unreachable host) has occurred within the web context.")
        case .webInternalError:
            ("ERROR_WEB_INTERNAL_ERROR",
             "An internal error has occurred within the SFSafariViewController or WKWebView.")
        case .webSignInUserInteractionFailure:
            ("ERROR_WEB_USER_INTERACTION_FAILURE",
             "The app verification process has failed, print and inspect the error details for more information")
        case .localPlayerNotAuthenticated:
            ("ERROR_LOCAL_PLAYER_NOT_AUTHENTICATED",
             "The local player is not authenticated. Please log the local player in to Game Center.")
        case .nullUser:
            ("ERROR_NULL_USER",
             "A null user object was provided as the argument for an operation which requires a non-null user object.")
        case .dynamicLinkNotActivated:
            ("ERROR_DYNAMIC_LINK_NOT_ACTIVATED",
             "Please activate Dynamic Links in the Firebase Console and agree to the terms and conditions.")
        case .invalidProviderID:
            ("ERROR_INVALID_PROVIDER_ID",
             "The provider ID provided for the attempted web operation is invalid.")
        case .tenantIDMismatch:
            ("ERROR_TENANT_ID_MISMATCH",
             "The provided user's tenant ID does not match the Auth instance's tenant ID.")
        case .unsupportedTenantOperation:
            ("ERROR_UNSUPPORTED_TENANT_OPERATION",
             "This operation is not supported in a multi-tenant context.")
        case .invalidDynamicLinkDomain:
            ("ERROR_INVALID_DYNAMIC_LINK_DOMAIN",
             "The Firebase Dynamic Link domain used is either not configured or is unauthorized for the current project.")
        case .rejectedCredential:
            ("ERROR_REJECTED_CREDENTIAL",
             "The request contains malformed or mismatching credentials.")
        case .gameKitNotLinked:
            ("ERROR_GAME_KIT_NOT_LINKED",
             "The GameKit framework is not linked. Please turn on the Game Center capability.")
        case .secondFactorRequired:
            ("ERROR_SECOND_FACTOR_REQUIRED",
             "Please complete a second factor challenge to finish signing into this account.")
        case .missingMultiFactorSession:
            ("ERROR_MISSING_MULTI_FACTOR_SESSION",
             "The request is missing proof of first factor successful sign-in.")
        case .missingMultiFactorInfo: ("ERROR_MISSING_MULTI_FACTOR_INFO", "No second factor identifier is provided.")
        case .invalidMultiFactorSession:
            ("ERROR_INVALID_MULTI_FACTOR_SESSION",
             "The request does not contain a valid proof of first factor successful sign-in.")
        case .multiFactorInfoNotFound:
            ("ERROR_MULTI_FACTOR_INFO_NOT_FOUND",
             "The user does not have a second factor matching the identifier provided.")
        case .adminRestrictedOperation:
            ("ERROR_ADMIN_RESTRICTED_OPERATION",
             "This operation is restricted to administrators only.")
        case .unverifiedEmail: ("ERROR_UNVERIFIED_EMAIL", "The operation requires a verified email.")
        case .secondFactorAlreadyEnrolled:
            ("ERROR_SECOND_FACTOR_ALREADY_ENROLLED",
             "The second factor is already enrolled on this account.")
        case .maximumSecondFactorCountExceeded:
            ("ERROR_MAXIMUM_SECOND_FACTOR_COUNT_EXCEEDED",
             "The maximum allowed number of second factors on a user has been exceeded.")
        case .unsupportedFirstFactor:
            ("ERROR_UNSUPPORTED_FIRST_FACTOR",
             "Enrolling a second factor or signing in with a multi-factor account requires sign-in with a supported first factor.")
        case .emailChangeNeedsVerification:
            ("ERROR_EMAIL_CHANGE_NEEDS_VERIFICATION",
             "Multi-factor users must always have a verified email.")
        case .missingClientIdentifier:
            ("ERROR_MISSING_CLIENT_IDENTIFIER",
             "The request does not contain a client identifier.")
        case .missingOrInvalidNonce:
            ("ERROR_MISSING_OR_INVALID_NONCE",
             "The request contains malformed or mismatched credentials.")
        case .blockingCloudFunctionError:
            ("ERROR_BLOCKING_CLOUD_FUNCTION_RETURNED_ERROR",
             "Blocking cloud function returned an error.")
        case .recaptchaNotEnabled:
            ("ERROR_RECAPTCHA_NOT_ENABLED",
             "reCAPTCHA Enterprise is not enabled for this project.")
        case .missingRecaptchaToken:
            ("ERROR_MISSING_RECAPTCHA_TOKEN",
             "The backend request is missing the reCAPTCHA verification token.")
        case .invalidRecaptchaToken:
            ("ERROR_INVALID_RECAPTCHA_TOKEN",
             "The reCAPTCHA verification token is invalid or has expired.")
        case .invalidRecaptchaAction:
            ("ERROR_INVALID_RECAPTCHA_ACTION",
             "The reCAPTCHA verification failed due to an invalid action.")
        case .missingClientType:
            ("ERROR_MISSING_CLIENT_TYPE",
             "The request is missing a client type or the client type is invalid.")
        case .missingRecaptchaVersion:
            ("ERROR_MISSING_RECAPTCHA_VERSION",
             "The request is missing the reCAPTCHA version parameter.")
        case .invalidRecaptchaVersion:
            ("ERROR_INVALID_RECAPTCHA_VERSION",
             "The request specifies an invalid version of reCAPTCHA.")
        case .invalidReqType: ("ERROR_INVALID_REQ_TYPE", "The request is not supported or is invalid.")
        case .recaptchaSDKNotLinked:
            ("ERROR_RECAPTCHA_SDK_NOT_LINKED",
             "The reCAPTCHA SDK is not linked to your app. See https://cloud.google.com/recaptcha-enterprise/docs/instrument-ios-apps")
        case .recaptchaSiteKeyMissing:
            ("ERROR_RECAPTCHA_SITE_KEY_MISSING",
             "The reCAPTCHA SDK site key wasn't found. See https://cloud.google.com/recaptcha-enterprise/docs/instrument-ios-apps")
        case .recaptchaActionCreationFailed:
            ("ERROR_RECAPTCHA_ACTION_CREATION_FAILED",
             "The reCAPTCHA SDK action class failed to initialize. See https://cloud.google.com/recaptcha-enterprise/docs/instrument-ios-apps")
        case .keychainError:
            ("ERROR_KEYCHAIN_ERROR",
             "An error occurred when accessing the keychain. The NSLocalizedFailureReasonErrorKey field in the NSError.userInfo dictionary will contain more information about the error encountered")
        case .internalError:
            ("ERROR_INTERNAL_ERROR",
             "An internal error has occurred, print and inspect the error details for more information.")
        case .malformedJWT:
            ("ERROR_MALFORMED_JWT",
             "Failed to parse JWT. Check the userInfo dictionary for the full token.")
        }
    }

    /// The Apple SDK's description.
    var errorDescription: String { text.description }

    /// The Apple SDK's short name, e.g. "ERROR_WRONG_PASSWORD".
    var errorCodeString: String { text.name }
}
