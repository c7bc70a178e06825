// AuthErrorCode as the Apple SDK declares it: every case with its raw value, the reserved values
// absent, so that `AuthErrorCode(rawValue: error.code)` and a `switch` over it read as on Apple.
import FBStorage
@testable import FirebaseAuth
import Testing

@Suite("AuthErrorCode, the Apple SDK's cases")
struct ErrorCodeTests {
    @Test("the cases the Apple guides use have the Apple raw values")
    func rawValues() {
        let expected: [(AuthErrorCode, Int)] = [
            (.invalidCustomToken, 17000), (.accountExistsWithDifferentCredential, 17012),
            (.providerAlreadyLinked, 17015), (.credentialAlreadyInUse, 17025), (.expiredActionCode, 17029),
            (.invalidPhoneNumber, 17042), (.sessionExpired, 17051), (.webContextCancelled, 17058),
            (.secondFactorRequired, 17078), (.missingMultiFactorSession, 17081),
            (.unverifiedEmail, 17086), (.blockingCloudFunctionError, 17105),
            (.recaptchaActionCreationFailed, 17210), (.keychainError, 17995), (.malformedJWT, 18000),
        ]
        for (code, raw) in expected {
            #expect(code.rawValue == raw, "\(code)")
            #expect(AuthErrorCode(rawValue: raw) == code)
        }
    }

    @Test("all 91 cases, and none for the values the Apple SDK reserves")
    func completeness() {
        #expect(AuthErrorCode.allCases.count == 91)
        for reserved in [17001, 17003, 17013, 17018, 17019, 17022, 17027, 17035, 17049, 17050, 17077, 17079, 17080] {
            #expect(AuthErrorCode(rawValue: reserved) == nil, "\(reserved)")
        }
    }
}

@Suite("the core's Auth errors as the Apple SDK's codes")
struct ErrorMappingTests {
    /// A core error as the server's answer makes it (the body names the server's code).
    private func mapped(_ code: FBStorage.StorageErrorCode, server: String? = nil) -> AuthErrorCode {
        let body = server.map { #"{"error": {"code": 400, "message": "\#($0)"}}"# }
        let error = FBStorage.StorageError(code: code, message: "m", httpStatus: server == nil ? nil : 400, serverResponse: body)
        return AuthErrorCode(rawValue: error.authError.code)!
    }

    @Test("each account lifecycle code of the core has its Apple code")
    func lifecycle() {
        #expect(mapped(.authCredentialAlreadyInUse) == .credentialAlreadyInUse)
        #expect(mapped(.authProviderAlreadyLinked) == .providerAlreadyLinked)
        #expect(mapped(.authInvalidActionCode) == .invalidActionCode)
        #expect(mapped(.authExpiredActionCode) == .expiredActionCode)
        #expect(mapped(.authInvalidCredential) == .invalidCredential)
        #expect(mapped(.authAccountExistsWithDifferentCredential) == .accountExistsWithDifferentCredential)
        #expect(mapped(.authUserMismatch) == .userMismatch)
        #expect(mapped(.authRequiresRecentLogin) == .requiresRecentLogin)
    }

    @Test("the continue URL's refusals are told apart by the server's code")
    func continueURL() {
        #expect(mapped(.invalidArgument, server: "INVALID_CONTINUE_URI : not absolute") == .invalidContinueURI)
        #expect(mapped(.invalidArgument, server: "MISSING_CONTINUE_URI") == .missingContinueURI)
        #expect(mapped(.invalidArgument, server: "UNAUTHORIZED_DOMAIN : Domain not allowlisted") == .unauthorizedDomain)
        #expect(mapped(.invalidArgument) == .internalError)
    }
}
