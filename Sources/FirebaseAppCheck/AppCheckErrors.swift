import FBStorage
import Foundation

/// The domain of the errors App Check hands out, as the Apple SDK's `AppCheckErrorDomain`.
public let AppCheckErrorDomain: String = "com.firebase.appCheck"

/// The Apple SDK's App Check error codes (raw values as in FIRAppCheckErrors.h), so that
/// `AppCheckErrorCode(rawValue: error.code)` reads as on Apple platforms. This module produces
/// unknown, serverUnreachable and invalidConfiguration; the rest exist so that code written for
/// the Apple SDK compiles unchanged.
public enum AppCheckErrorCode: Int, Sendable, CaseIterable {
    case unknown = 0
    /// The token exchange could not be reached before the operation deadline.
    case serverUnreachable = 1
    /// No provider, or the App Check service refused the attestation (an unregistered debug token,
    /// an unknown project or app).
    case invalidConfiguration = 2
    case keychain = 3
    case unsupported = 4
    case appAttestGenerateKeyFailed = 5
    case appAttestAttestKeyFailed = 6
    case appAttestGenerateAssertionFailed = 7
}

extension AppCheckErrorCode {
    /// The Apple SDK's code for a core error.
    init(_ error: FBStorage.StorageError) {
        switch error.code {
        case .retryLimitExceeded, .hostNotFound, .timeout, .tls: self = .serverUnreachable
        case .appCheckNoProvider, .appCheckAttestationFailed, .invalidArgument: self = .invalidConfiguration
        default: self = .unknown
        }
    }

    /// An `NSError` of this code in `AppCheckErrorDomain`, the core's message as its description.
    static func error(_ error: FBStorage.StorageError) -> NSError {
        NSError(domain: AppCheckErrorDomain, code: AppCheckErrorCode(error).rawValue,
                userInfo: [NSLocalizedDescriptionKey: error.message, NSLocalizedFailureReasonErrorKey: error.message])
    }
}
