// AuthErrorCode as the Apple SDK declares it: every case with its raw value, the reserved values
// absent, so that `AuthErrorCode(rawValue: error.code)` and a `switch` over it read as on Apple.
import FirebaseAuth
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
