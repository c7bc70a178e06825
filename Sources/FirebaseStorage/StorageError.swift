import FBStorage
import Foundation

/// The error domain of every error this module hands out.
public let StorageErrorDomain: String = "FIRStorageErrorDomain"

/// The codes of `StorageErrorDomain` errors: the Apple SDK's raw values, which are also the
/// `fbs_error_code` values of the C API.
public enum StorageErrorCode: Int, Swift.Error {
    case unknown = -13000
    case objectNotFound = -13010
    case bucketNotFound = -13011
    case projectNotFound = -13012
    case quotaExceeded = -13013
    case unauthenticated = -13020
    case unauthorized = -13021
    case retryLimitExceeded = -13030
    case nonMatchingChecksum = -13031
    case downloadSizeExceeded = -13032
    case cancelled = -13040
    case invalidArgument = -13050
    case bucketMismatch = -13051
    case internalError = -13052
    case pathError = -13053
}

/// Storage errors as the Apple SDK's Swift API throws them (async and `Result` forms). As a
/// `CustomNSError` it converts with `as NSError` to the `NSError` that completion handlers and
/// snapshots receive: domain `StorageErrorDomain`, code the `StorageErrorCode` raw value.
public enum StorageError: Error, CustomNSError {
    case unknown(message: String, serverError: [String: Any])
    case objectNotFound(object: String, serverError: [String: Any])
    case bucketNotFound(bucket: String)
    case projectNotFound(project: String)
    case quotaExceeded(bucket: String, serverError: [String: Any])
    case unauthenticated(serverError: [String: Any])
    case unauthorized(bucket: String, object: String, serverError: [String: Any])
    case retryLimitExceeded
    case nonMatchingChecksum
    case downloadSizeExceeded(total: Int64, maxSize: Int64)
    case cancelled
    case invalidArgument(message: String)
    case internalError(message: String)
    case bucketMismatch(message: String)
    case pathError(message: String)

    public static var errorDomain: String { StorageErrorDomain }

    public var errorCode: Int {
        let code: StorageErrorCode = switch self {
        case .unknown: .unknown
        case .objectNotFound: .objectNotFound
        case .bucketNotFound: .bucketNotFound
        case .projectNotFound: .projectNotFound
        case .quotaExceeded: .quotaExceeded
        case .unauthenticated: .unauthenticated
        case .unauthorized: .unauthorized
        case .retryLimitExceeded: .retryLimitExceeded
        case .nonMatchingChecksum: .nonMatchingChecksum
        case .downloadSizeExceeded: .downloadSizeExceeded
        case .cancelled: .cancelled
        case .invalidArgument: .invalidArgument
        case .internalError: .internalError
        case .bucketMismatch: .bucketMismatch
        case .pathError: .pathError
        }
        return code.rawValue
    }

    /// The Apple SDK's descriptions, with the server's details (`serverError`) where it has them.
    public var errorUserInfo: [String: Any] {
        func described(_ info: [String: Any], _ description: String) -> [String: Any] {
            info.merging([NSLocalizedDescriptionKey: description]) { _, new in new }
        }
        switch self {
        case let .unknown(message, serverError):
            return described(serverError, message)
        case let .objectNotFound(object, serverError):
            return described(serverError, "Object \(object) does not exist.")
        case let .bucketNotFound(bucket):
            return described([:], "Bucket \(bucket) does not exist.")
        case let .projectNotFound(project):
            return described([:], "Project \(project) does not exist.")
        case let .quotaExceeded(bucket, serverError):
            return described(serverError, "Quota for bucket \(bucket) exceeded, please view quota on firebase.google.com.")
        case let .unauthenticated(serverError):
            return described(serverError,
                             "User is not authenticated, please authenticate using Firebase Authentication and try again.")
        case let .unauthorized(bucket, object, serverError):
            return described(serverError, "User does not have permission to access gs://\(bucket)/\(object).")
        case .retryLimitExceeded:
            return described([:], "Max retry time for operation exceeded, please try again.")
        case .nonMatchingChecksum:
            // The Apple SDK's text, placeholders included: code may compare against it.
            return described([:], "Uploaded/downloaded object TODO has checksum: TODO which does not match server checksum: "
                             + "TODO. Please retry the upload/download.")
        case let .downloadSizeExceeded(total, maxSize):
            return described(["totalSize": total, "maxAllowedSize": maxSize],
                             "Attempted to download object with size of \(total) bytes, which exceeds the maximum size of "
                             + "\(maxSize) bytes. Consider raising the maximum download maxSize, or using StorageReference.write")
        case .cancelled:
            return described([:], "User cancelled the upload/download.")
        case let .invalidArgument(message), let .internalError(message), let .bucketMismatch(message),
             let .pathError(message):
            return described([:], message)
        }
    }

    /// The `NSError` handed to completion handlers and snapshots. A real `NSError` instance, so
    /// `error as? NSError` works on Linux too (where a Swift error does not bridge by `as?`).
    var nsError: NSError { self as NSError }

    /// The domain of the HTTP errors the Apple SDK's fetcher (GTMSessionFetcher) reports, code =
    /// the status; its storage errors carry one under `NSUnderlyingErrorKey`.
    static let httpStatusDomain = "com.google.HTTPStatus"

    /// The core's error for an operation on `reference`. The server's details go in the user info
    /// as the Apple SDK puts them: the HTTP error under `NSUnderlyingErrorKey` (domain
    /// `com.google.HTTPStatus`, code the status, the body as `data`), `ResponseErrorDomain`,
    /// `ResponseErrorCode` (the status), `data` and `ResponseBody` (the body), `bucket`, `object`,
    /// and the core's own message under `NSLocalizedFailureReasonErrorKey`.
    init(_ error: FBStorage.StorageError, bucket: String, object: String) {
        var server: [String: Any] = ["bucket": bucket, "object": object,
                                     NSLocalizedFailureReasonErrorKey: error.message]
        let body = error.serverResponse.map { Data($0.utf8) }
        if let status = error.httpStatus {
            server[NSUnderlyingErrorKey] = NSError(domain: Self.httpStatusDomain, code: status,
                                                   userInfo: body.map { ["data": $0] } ?? [:])
            server["ResponseErrorDomain"] = Self.httpStatusDomain
            server["ResponseErrorCode"] = status
        }
        if let body {
            server["data"] = body
            server["ResponseBody"] = error.serverResponse
        }
        // The Apple SDK's descriptions of a status it does not map.
        let unknown = switch error.httpStatus {
        case 400?: "Unknown 400 error from backend"
        case let status?: "Unexpected \(status) code from backend"
        case nil: error.message
        }
        switch error.code {
        // The Apple SDK has no timeout, TLS or range codes: only the C API's wait, https and
        // fbstorage's ranged and streaming reads report them.
        case .unknown, .timeout, .tls, .rangeNotSatisfiable, .objectChanged, .hostNotFound: self = .unknown(message: unknown, serverError: server)
        case .objectNotFound: self = .objectNotFound(object: object, serverError: server)
        case .bucketNotFound: self = .bucketNotFound(bucket: bucket)
        case .projectNotFound: self = .projectNotFound(project: error.message)
        case .quotaExceeded: self = .quotaExceeded(bucket: bucket, serverError: server)
        // The app's Auth could not give a token (a disabled or deleted user, a revoked session…):
        // unauthenticated, as the Apple SDK wraps Auth's error; the cause is the failure reason.
        case .unauthenticated, .authInvalidAPIKey, .authInvalidEmail, .authWrongPassword, .authUserNotFound,
             .authEmailAlreadyInUse, .authWeakPassword, .authUserDisabled, .authInvalidCustomToken,
             .authTooManyRequests, .authOperationNotAllowed, .authUserTokenExpired, .authInvalidRefreshToken,
             .authNoUser, .authRequiresRecentLogin, .authCredentialAlreadyInUse, .authProviderAlreadyLinked,
             .authInvalidActionCode, .authExpiredActionCode, .authInvalidCredential,
             .authAccountExistsWithDifferentCredential, .authUserMismatch, .authInvalidUserToken,
             .credentialInvalid, .credentialClockSkew, .credentialRejected,
             .appCheckTokenInvalid, .appCheckTokenMissing, .appCheckProviderFailed, .appCheckAttestationFailed, .appCheckNoProvider:
            self = .unauthenticated(serverError: server)
        case .unauthorized: self = .unauthorized(bucket: bucket, object: object, serverError: server)
        case .retryLimitExceeded: self = .retryLimitExceeded
        case .nonMatchingChecksum: self = .nonMatchingChecksum
        // getData, which knows both sizes, builds this error itself; -1 stands for "not known here".
        case .downloadSizeExceeded: self = .downloadSizeExceeded(total: -1, maxSize: -1)
        case .cancelled: self = .cancelled
        case .invalidArgument: self = .invalidArgument(message: error.message)
        case .bucketMismatch: self = .bucketMismatch(message: error.message)
        case .internalError: self = .internalError(message: error.message)
        case .pathError: self = .pathError(message: error.message)
        }
    }
}
