/// The error codes of fbstorage: the Firebase `StorageErrorCode` raw values, which are also the
/// values of `fbs_error_code` in `include/fbstorage.h` (all of them except `FBS_OK`).
public enum StorageErrorCode: Int32, Sendable, CaseIterable {
    /// An unmapped server status or an unexpected failure; the message says which.
    case unknown = -13000
    /// HTTP 404 on an object.
    case objectNotFound = -13010
    /// The bucket does not exist.
    case bucketNotFound = -13011
    /// The project does not exist.
    case projectNotFound = -13012
    /// HTTP 402, or 429 once retries are spent.
    case quotaExceeded = -13013
    /// HTTP 401 (after one token refresh).
    case unauthenticated = -13020
    /// HTTP 403.
    case unauthorized = -13021
    /// The operation's retry deadline passed on retryable failures.
    case retryLimitExceeded = -13030
    /// The uploaded bytes' checksum differs from the server's.
    case nonMatchingChecksum = -13031
    /// The object is larger than the caller's maximum size.
    case downloadSizeExceeded = -13032
    /// The task or operation was cancelled.
    case cancelled = -13040
    /// A NULL, bad handle, bad UTF-8 or out-of-range value.
    case invalidArgument = -13050
    /// A URL names another bucket than the storage's.
    case bucketMismatch = -13051
    /// A bug in the library.
    case internalError = -13052
    /// A bad URL or path.
    case pathError = -13053
    /// A wait's timeout passed first (the C API's fbs_task_wait; no Firebase counterpart).
    case timeout = -13060
    /// TLS failed: the server's certificate did not verify (CA, expiry, host name), or the
    /// handshake failed. Never retried (no Firebase counterpart).
    case tls = -13061
    /// A byte range reaches past the end of the object (fbstorage's own).
    case rangeNotSatisfiable = -13062
    /// The object was replaced (another generation) while a download read it (fbstorage's own).
    case objectChanged = -13063
    /// The resolver answered that the endpoint's host name does not exist (NXDOMAIN): a
    /// misspelled host. Never retried, unlike a resolver that fails to answer (fbstorage's own).
    case hostNotFound = -13064

    // Firebase Auth (the Apple SDK's AuthErrorCode).
    /// The API key is not valid for the project.
    case authInvalidAPIKey = -13100
    /// A malformed email address.
    case authInvalidEmail = -13101
    /// A wrong password.
    case authWrongPassword = -13102
    /// No such account (deleted?).
    case authUserNotFound = -13103
    /// Another account has this email.
    case authEmailAlreadyInUse = -13104
    /// A password shorter than 6 characters.
    case authWeakPassword = -13105
    /// The account was disabled by an administrator.
    case authUserDisabled = -13106
    /// A malformed, expired or foreign custom token.
    case authInvalidCustomToken = -13107
    /// The service throttles this device or account.
    case authTooManyRequests = -13108
    /// The sign-in provider is disabled for the project.
    case authOperationNotAllowed = -13109
    /// The session was revoked: sign in again.
    case authUserTokenExpired = -13110
    /// A malformed or unknown refresh token.
    case authInvalidRefreshToken = -13111
    /// The call needs a signed-in user.
    case authNoUser = -13112
    /// Sign in again before this sensitive call.
    case authRequiresRecentLogin = -13113
    /// The credential belongs to another account (FEDERATED_USER_ID_ALREADY_LINKED).
    case authCredentialAlreadyInUse = -13114
    /// The user already has an identity of this provider.
    case authProviderAlreadyLinked = -13115
    /// The email action code is malformed, used, or of another kind (INVALID_OOB_CODE).
    case authInvalidActionCode = -13116
    /// The email action code has expired (EXPIRED_OOB_CODE).
    case authExpiredActionCode = -13117
    /// The identity provider's token is malformed or refused (INVALID_IDP_RESPONSE).
    case authInvalidCredential = -13118
    /// The email's account signs in another way (needConfirmation).
    case authAccountExistsWithDifferentCredential = -13119
    /// Reauthentication with another user's credential.
    case authUserMismatch = -13120
    /// The server refuses the user's ID token (INVALID_ID_TOKEN): sign in again.
    case authInvalidUserToken = -13121

    // Service accounts and access tokens (fbstorage/admin.h).
    /// A service-account key that is malformed or of another type.
    case credentialInvalid = -13200
    /// The token endpoint refused the assertion's times: this machine's clock is wrong.
    case credentialClockSkew = -13201
    /// The token endpoint refused the service account (401, `invalid_grant`, `invalid_client`).
    case credentialRejected = -13202

    // App Check (fbstorage/app_check.h).
    /// Firebase Storage refused the request's App Check token (expired, revoked, another
    /// project's or app's), after one retry with a fresh token.
    case appCheckTokenInvalid = -13300
    /// Firebase Storage enforces App Check and the request carried no App Check token.
    case appCheckTokenMissing = -13301
    /// The App Check provider failed or answered an unusable token.
    case appCheckProviderFailed = -13302
    /// The App Check service refused the attestation (an unregistered debug token, an invalid
    /// custom token, an unknown app).
    case appCheckAttestationFailed = -13303
    /// A token was asked of an App Check without a provider.
    case appCheckNoProvider = -13304

    /// The name of the code's constant in `fbstorage.h`, e.g. `"FBS_ERR_OBJECT_NOT_FOUND"`.
    public var cName: String {
        switch self {
        case .unknown: "FBS_ERR_UNKNOWN"
        case .objectNotFound: "FBS_ERR_OBJECT_NOT_FOUND"
        case .bucketNotFound: "FBS_ERR_BUCKET_NOT_FOUND"
        case .projectNotFound: "FBS_ERR_PROJECT_NOT_FOUND"
        case .quotaExceeded: "FBS_ERR_QUOTA_EXCEEDED"
        case .unauthenticated: "FBS_ERR_UNAUTHENTICATED"
        case .unauthorized: "FBS_ERR_UNAUTHORIZED"
        case .retryLimitExceeded: "FBS_ERR_RETRY_LIMIT_EXCEEDED"
        case .nonMatchingChecksum: "FBS_ERR_NON_MATCHING_CHECKSUM"
        case .downloadSizeExceeded: "FBS_ERR_DOWNLOAD_SIZE_EXCEEDED"
        case .cancelled: "FBS_ERR_CANCELLED"
        case .invalidArgument: "FBS_ERR_INVALID_ARGUMENT"
        case .bucketMismatch: "FBS_ERR_BUCKET_MISMATCH"
        case .internalError: "FBS_ERR_INTERNAL"
        case .pathError: "FBS_ERR_PATH"
        case .timeout: "FBS_ERR_TIMEOUT"
        case .tls: "FBS_ERR_TLS"
        case .rangeNotSatisfiable: "FBS_ERR_RANGE_NOT_SATISFIABLE"
        case .objectChanged: "FBS_ERR_OBJECT_CHANGED"
        case .hostNotFound: "FBS_ERR_HOST_NOT_FOUND"
        case .authInvalidAPIKey: "FBS_ERR_AUTH_INVALID_API_KEY"
        case .authInvalidEmail: "FBS_ERR_AUTH_INVALID_EMAIL"
        case .authWrongPassword: "FBS_ERR_AUTH_WRONG_PASSWORD"
        case .authUserNotFound: "FBS_ERR_AUTH_USER_NOT_FOUND"
        case .authEmailAlreadyInUse: "FBS_ERR_AUTH_EMAIL_ALREADY_IN_USE"
        case .authWeakPassword: "FBS_ERR_AUTH_WEAK_PASSWORD"
        case .authUserDisabled: "FBS_ERR_AUTH_USER_DISABLED"
        case .authInvalidCustomToken: "FBS_ERR_AUTH_INVALID_CUSTOM_TOKEN"
        case .authTooManyRequests: "FBS_ERR_AUTH_TOO_MANY_REQUESTS"
        case .authOperationNotAllowed: "FBS_ERR_AUTH_OPERATION_NOT_ALLOWED"
        case .authUserTokenExpired: "FBS_ERR_AUTH_USER_TOKEN_EXPIRED"
        case .authInvalidRefreshToken: "FBS_ERR_AUTH_INVALID_REFRESH_TOKEN"
        case .authNoUser: "FBS_ERR_AUTH_NO_USER"
        case .authRequiresRecentLogin: "FBS_ERR_AUTH_REQUIRES_RECENT_LOGIN"
        case .authCredentialAlreadyInUse: "FBS_ERR_AUTH_CREDENTIAL_ALREADY_IN_USE"
        case .authProviderAlreadyLinked: "FBS_ERR_AUTH_PROVIDER_ALREADY_LINKED"
        case .authInvalidActionCode: "FBS_ERR_AUTH_INVALID_ACTION_CODE"
        case .authExpiredActionCode: "FBS_ERR_AUTH_EXPIRED_ACTION_CODE"
        case .authInvalidCredential: "FBS_ERR_AUTH_INVALID_CREDENTIAL"
        case .authAccountExistsWithDifferentCredential: "FBS_ERR_AUTH_ACCOUNT_EXISTS_WITH_DIFFERENT_CREDENTIAL"
        case .authUserMismatch: "FBS_ERR_AUTH_USER_MISMATCH"
        case .authInvalidUserToken: "FBS_ERR_AUTH_INVALID_USER_TOKEN"
        case .credentialInvalid: "FBS_ERR_CREDENTIAL_INVALID"
        case .credentialClockSkew: "FBS_ERR_CREDENTIAL_CLOCK_SKEW"
        case .credentialRejected: "FBS_ERR_CREDENTIAL_REJECTED"
        case .appCheckTokenInvalid: "FBS_ERR_APP_CHECK_TOKEN_INVALID"
        case .appCheckTokenMissing: "FBS_ERR_APP_CHECK_TOKEN_MISSING"
        case .appCheckProviderFailed: "FBS_ERR_APP_CHECK_PROVIDER_FAILED"
        case .appCheckAttestationFailed: "FBS_ERR_APP_CHECK_ATTESTATION_FAILED"
        case .appCheckNoProvider: "FBS_ERR_APP_CHECK_NO_PROVIDER"
        }
    }
}
