/// Identity Toolkit's and Secure Token's error codes (`error.message` of a 400 body, possibly
/// followed by " : detail") as fbstorage codes with messages a person understands.
enum AuthErrors {
    static func error(status: Int, body: [UInt8], call: String) -> StorageError {
        let raw = JSONValue.parse(body)?["error"]?["message"]?.stringValue
            ?? JSONValue.parse(body)?["error"]?.stringValue ?? ""
        let serverCode = String(raw.prefix { $0 != " " && $0 != ":" })
        let (code, message) = mapping(serverCode, raw: raw)
        return StorageError(code: code, message: "Firebase Auth \(call): \(message)",
                            httpStatus: status, serverResponse: StorageError.serverResponse(body))
    }

    private static func mapping(_ serverCode: String, raw: String) -> (StorageErrorCode, String) {
        switch serverCode {
        case "EMAIL_EXISTS": (.authEmailAlreadyInUse, "The email address is already in use by another account.")
        case "INVALID_PASSWORD", "INVALID_LOGIN_CREDENTIALS":
            (.authWrongPassword, "The password is wrong or the account does not exist (\(serverCode)).")
        case "EMAIL_NOT_FOUND": (.authUserNotFound, "There is no account with this email address.")
        case "USER_NOT_FOUND": (.authUserNotFound, "The account no longer exists (deleted).")
        case "USER_DISABLED": (.authUserDisabled, "The account has been disabled by an administrator.")
        case "WEAK_PASSWORD": (.authWeakPassword, "The password must be at least 6 characters long.")
        case "INVALID_EMAIL", "INVALID_IDENTIFIER": (.authInvalidEmail, "The email address is badly formatted.")
        case "MISSING_PASSWORD": (.invalidArgument, "A password is required.")
        case "MISSING_EMAIL": (.invalidArgument, "An email address is required.")
        case "INVALID_CUSTOM_TOKEN", "CREDENTIAL_MISMATCH":
            (.authInvalidCustomToken, "The custom token is malformed, expired, or for another project (\(serverCode)).")
        case "TOO_MANY_ATTEMPTS_TRY_LATER", "QUOTA_EXCEEDED":
            (.authTooManyRequests, "Too many attempts from this device or for this account; try again later.")
        case "OPERATION_NOT_ALLOWED", "ADMIN_ONLY_OPERATION":
            (.authOperationNotAllowed, "This sign-in method is not enabled for the project (Firebase console: Authentication, Sign-in method).")
        case "TOKEN_EXPIRED", "USER_TOKEN_EXPIRED":
            (.authUserTokenExpired, "The user's session has expired or was revoked; sign in again.")
        case "INVALID_REFRESH_TOKEN", "MISSING_REFRESH_TOKEN", "INVALID_GRANT_TYPE":
            (.authInvalidRefreshToken, "The refresh token is not valid; sign in again.")
        case "INVALID_ID_TOKEN": (.authInvalidUserToken, "The server refuses the user's ID token; sign in again.")
        case "FEDERATED_USER_ID_ALREADY_LINKED":
            (.authCredentialAlreadyInUse, "This credential is already associated with another account.")
        case "INVALID_OOB_CODE":
            (.authInvalidActionCode, "The action code is malformed, already used, or of another kind.")
        case "EXPIRED_OOB_CODE": (.authExpiredActionCode, "The action code has expired; ask for a new one.")
        case "INVALID_IDP_RESPONSE":
            (.authInvalidCredential, "The identity provider's credential is malformed or was refused (\(serverCode)).")
        // The SDKs know no such code (C++ kAuthErrorFailure, Apple internalError); its detail
        // repeats the request's tokens, so it is left out.
        case "INVALID_CREDENTIAL_OR_PROVIDER_ID":
            (.unknown, "The identity provider is not one the project accepts, or its credential was refused (\(serverCode)).")
        case "INVALID_CONTINUE_URI", "MISSING_CONTINUE_URI":
            (.invalidArgument, "The action code settings' continue URL is missing or not an absolute URL (\(serverCode)).")
        case "UNAUTHORIZED_DOMAIN":
            (.invalidArgument, "The continue URL's domain is not authorized for the project (Firebase console: Authentication, Settings, Authorized domains).")
        case "CREDENTIAL_TOO_OLD_LOGIN_AGAIN": (.authRequiresRecentLogin, "This operation needs a recent sign-in; sign in again first.")
        case "API_KEY_INVALID", "API":
            (.authInvalidAPIKey, "The API key is not valid. Use the project's Web API key (Firebase console: Project settings).")
        default:
            raw.hasPrefix("API key not valid")
                ? (.authInvalidAPIKey, "The API key is not valid. Use the project's Web API key (Firebase console: Project settings).")
                : (.unknown, raw.isEmpty ? "unexpected answer" : "unexpected error \(raw)")
        }
    }

    /// Errors after which the user's session cannot continue: the user is signed out.
    static func endsSession(_ error: StorageError) -> Bool {
        [.authUserDisabled, .authUserNotFound, .authUserTokenExpired, .authInvalidRefreshToken, .authInvalidUserToken].contains(error.code)
    }
}
