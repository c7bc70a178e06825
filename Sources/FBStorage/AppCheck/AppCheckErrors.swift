/// App Check's errors: the exchange's refusals, and Firebase Storage's 401 for an App Check token
/// it does not accept, told apart from a user's 401 by its text (as the web SDK's
/// `storage/unauthorized-app`; docs/reference/app-check.md §4).
enum AppCheckErrors {
    /// The text of Firebase Storage's refusal (production and the emulator).
    static let storageRefusal = "Firebase App Check token is invalid"

    /// Whether a Storage response is App Check's refusal, not the user's.
    static func isStorageRefusal(status: Int, body: [UInt8]) -> Bool {
        status == 401 && String(decoding: body.prefix(4096), as: UTF8.self).contains(storageRefusal)
    }

    /// The error of a request Storage refused for its App Check token: `sent` says whether it
    /// carried one (invalid, expired, another project's) or none (no App Check set up).
    static func storageRefused(sent: Bool, status: Int, body: [UInt8]) -> StorageError {
        let message = sent
            ? "Firebase Storage refused the request's App Check token (\(storageRefusal).): expired, revoked, or for another project or app, even after a fresh one"
            : "Firebase Storage enforces App Check and the request carried no App Check token: give the storage an App Check with a provider"
        return StorageError(code: sent ? .appCheckTokenInvalid : .appCheckTokenMissing, message: message,
                            httpStatus: status, serverResponse: StorageError.serverResponse(body))
    }

    /// An exchange's refusal (any status but 2xx, 408, 429 and 5xx, which are retried).
    static func exchangeRefused(status: Int, body: [UInt8], call: String) -> StorageError {
        let server = JSONValue.parse(body)?["error"]?["message"]?.stringValue.map { " Server: \($0)" } ?? ""
        let message = switch status {
        case 403: "App Check \(call): the attestation was refused (a debug token not registered for this app, or an app without this provider)."
        case 404: "App Check \(call): the project or app is not known to App Check (check the project id and app id)."
        case 400: "App Check \(call): the request was refused as malformed (an invalid or expired custom token?)."
        default: "App Check \(call): unexpected HTTP \(status)."
        }
        return StorageError(code: [400, 401, 403, 404].contains(status) ? .appCheckAttestationFailed : .unknown,
                            message: message + server, httpStatus: status, serverResponse: StorageError.serverResponse(body))
    }
}
