@testable import FBStorage
import FoundationEssentials
import Testing

@Suite struct ModelErrorTests {
    let path = try! StoragePath(bucket: "B", object: "O/P")

    @Test func rawValuesMatchTheHeader() {
        let expected: [(StorageErrorCode, Int32, String)] = [
            (.unknown, -13000, "FBS_ERR_UNKNOWN"),
            (.objectNotFound, -13010, "FBS_ERR_OBJECT_NOT_FOUND"),
            (.bucketNotFound, -13011, "FBS_ERR_BUCKET_NOT_FOUND"),
            (.projectNotFound, -13012, "FBS_ERR_PROJECT_NOT_FOUND"),
            (.quotaExceeded, -13013, "FBS_ERR_QUOTA_EXCEEDED"),
            (.unauthenticated, -13020, "FBS_ERR_UNAUTHENTICATED"),
            (.unauthorized, -13021, "FBS_ERR_UNAUTHORIZED"),
            (.retryLimitExceeded, -13030, "FBS_ERR_RETRY_LIMIT_EXCEEDED"),
            (.nonMatchingChecksum, -13031, "FBS_ERR_NON_MATCHING_CHECKSUM"),
            (.downloadSizeExceeded, -13032, "FBS_ERR_DOWNLOAD_SIZE_EXCEEDED"),
            (.cancelled, -13040, "FBS_ERR_CANCELLED"),
            (.invalidArgument, -13050, "FBS_ERR_INVALID_ARGUMENT"),
            (.bucketMismatch, -13051, "FBS_ERR_BUCKET_MISMATCH"),
            (.internalError, -13052, "FBS_ERR_INTERNAL"),
            (.pathError, -13053, "FBS_ERR_PATH"),
            (.timeout, -13060, "FBS_ERR_TIMEOUT"),
            (.tls, -13061, "FBS_ERR_TLS"),
            (.rangeNotSatisfiable, -13062, "FBS_ERR_RANGE_NOT_SATISFIABLE"),
            (.objectChanged, -13063, "FBS_ERR_OBJECT_CHANGED"),
            (.hostNotFound, -13064, "FBS_ERR_HOST_NOT_FOUND"),
            (.authInvalidAPIKey, -13100, "FBS_ERR_AUTH_INVALID_API_KEY"),
            (.authInvalidEmail, -13101, "FBS_ERR_AUTH_INVALID_EMAIL"),
            (.authWrongPassword, -13102, "FBS_ERR_AUTH_WRONG_PASSWORD"),
            (.authUserNotFound, -13103, "FBS_ERR_AUTH_USER_NOT_FOUND"),
            (.authEmailAlreadyInUse, -13104, "FBS_ERR_AUTH_EMAIL_ALREADY_IN_USE"),
            (.authWeakPassword, -13105, "FBS_ERR_AUTH_WEAK_PASSWORD"),
            (.authUserDisabled, -13106, "FBS_ERR_AUTH_USER_DISABLED"),
            (.authInvalidCustomToken, -13107, "FBS_ERR_AUTH_INVALID_CUSTOM_TOKEN"),
            (.authTooManyRequests, -13108, "FBS_ERR_AUTH_TOO_MANY_REQUESTS"),
            (.authOperationNotAllowed, -13109, "FBS_ERR_AUTH_OPERATION_NOT_ALLOWED"),
            (.authUserTokenExpired, -13110, "FBS_ERR_AUTH_USER_TOKEN_EXPIRED"),
            (.authInvalidRefreshToken, -13111, "FBS_ERR_AUTH_INVALID_REFRESH_TOKEN"),
            (.authNoUser, -13112, "FBS_ERR_AUTH_NO_USER"),
            (.authRequiresRecentLogin, -13113, "FBS_ERR_AUTH_REQUIRES_RECENT_LOGIN"),
            (.authCredentialAlreadyInUse, -13114, "FBS_ERR_AUTH_CREDENTIAL_ALREADY_IN_USE"),
            (.authProviderAlreadyLinked, -13115, "FBS_ERR_AUTH_PROVIDER_ALREADY_LINKED"),
            (.authInvalidActionCode, -13116, "FBS_ERR_AUTH_INVALID_ACTION_CODE"),
            (.authExpiredActionCode, -13117, "FBS_ERR_AUTH_EXPIRED_ACTION_CODE"),
            (.authInvalidCredential, -13118, "FBS_ERR_AUTH_INVALID_CREDENTIAL"),
            (.authAccountExistsWithDifferentCredential, -13119, "FBS_ERR_AUTH_ACCOUNT_EXISTS_WITH_DIFFERENT_CREDENTIAL"),
            (.authUserMismatch, -13120, "FBS_ERR_AUTH_USER_MISMATCH"),
            (.authInvalidUserToken, -13121, "FBS_ERR_AUTH_INVALID_USER_TOKEN"),
            (.credentialInvalid, -13200, "FBS_ERR_CREDENTIAL_INVALID"),
            (.credentialClockSkew, -13201, "FBS_ERR_CREDENTIAL_CLOCK_SKEW"),
            (.credentialRejected, -13202, "FBS_ERR_CREDENTIAL_REJECTED"),
            (.appCheckTokenInvalid, -13300, "FBS_ERR_APP_CHECK_TOKEN_INVALID"),
            (.appCheckTokenMissing, -13301, "FBS_ERR_APP_CHECK_TOKEN_MISSING"),
            (.appCheckProviderFailed, -13302, "FBS_ERR_APP_CHECK_PROVIDER_FAILED"),
            (.appCheckAttestationFailed, -13303, "FBS_ERR_APP_CHECK_ATTESTATION_FAILED"),
            (.appCheckNoProvider, -13304, "FBS_ERR_APP_CHECK_NO_PROVIDER"),
        ]
        // The Auth codes (-131xx) are checked against the header by namesAreInTheHeader.
        #expect(StorageErrorCode.allCases.count == expected.count)
        for (code, raw, name) in expected {
            #expect(code.rawValue == raw)
            #expect(code.cName == name)
            #expect(StorageErrorCode(rawValue: raw) == code)
        }
        #expect(StorageErrorCode(rawValue: 0) == nil)
    }

    /// The names appear in include/fbstorage/common.h with the same values (when the header is found
    /// relative to this file, as it is in the repository).
    @Test func namesAreInTheHeader() throws {
        let testFile = #filePath
        guard let range = testFile.firstRange(of: "/Tests/FBStorageTests/") else { return }
        let header = String(testFile[..<range.lowerBound]) + "/include/fbstorage/common.h"
        guard let data = try? Data(contentsOf: URL(fileURLWithPath: header)) else {
            Issue.record("cannot read \(header)")
            return
        }
        let compact = String(decoding: data, as: UTF8.self).replacing(" ", with: "")
        for code in StorageErrorCode.allCases {
            #expect(compact.contains("\(code.cName)=\(code.rawValue),") || compact.contains("\(code.cName)=\(code.rawValue)/*"),
                    "\(code.cName)")
        }
    }

    @Test(arguments: [
        (401, StorageErrorCode.unauthenticated), (402, .quotaExceeded), (403, .unauthorized),
        (404, .objectNotFound), (429, .quotaExceeded), (400, .unknown), (500, .unknown),
        (503, .unknown), (509, .unknown), (418, .unknown), (200, .unknown),
    ])
    func httpStatusMapping(status: Int, code: StorageErrorCode) {
        let e = StorageError.http(status: status, body: [], path: path)
        #expect(e.code == code)
        #expect(e.httpStatus == status)
        #expect(e.serverResponse == nil)
    }

    @Test func messages() {
        #expect(StorageError.http(status: 403, body: [], path: path).message == "User does not have permission to access gs://B/O/P.")
        #expect(StorageError.http(status: 404, body: [], path: path).message == "Object gs://B/O/P does not exist.")
        #expect(StorageError.http(status: 509, body: [], path: path).message == "Unexpected HTTP 509 from the server.")
    }

    @Test func jsonBodyMessageIsAdded() {
        let body = Array(#"{"error":{"code":403,"message":"Permission denied. No READ permission."}}"#.utf8)
        let e = StorageError.http(status: 403, body: body, path: path)
        #expect(e.message == "User does not have permission to access gs://B/O/P. Server: Permission denied. No READ permission.")
        #expect(e.serverResponse == String(decoding: body, as: UTF8.self))
        let other = StorageError.http(status: 400, body: Array(#"{"error":{"code":400,"message":"The prefix parameter is required"}}"#.utf8), path: path)
        #expect(other.message == "Unexpected HTTP 400 from the server: The prefix parameter is required")
    }

    @Test func textBodyIsKeptAsText() {
        let e = StorageError.http(status: 404, body: Array("Not Found".utf8), path: path)
        #expect(e.code == .objectNotFound)
        #expect(e.message == "Object gs://B/O/P does not exist. Server: Not Found")
        #expect(e.serverResponse == "Not Found")
        let bad = StorageError.http(status: 400, body: Array("Bad Request\r\nmore\tlines  ".utf8), path: path)
        #expect(bad.message == "Unexpected HTTP 400 from the server: Bad Request more lines")
    }

    @Test func jsonWithoutMessage() {
        let e = StorageError.http(status: 500, body: Array(#"{"error":{"code":500}}"#.utf8), path: path)
        #expect(e.message == "Unexpected HTTP 500 from the server.")
        #expect(e.serverResponse == #"{"error":{"code":500}}"#)
        let flat = StorageError.http(status: 500, body: Array(#"{"error":"boom"}"#.utf8), path: path)
        #expect(flat.message == "Unexpected HTTP 500 from the server: boom")
    }

    @Test func serverResponseIsCappedAtACharacterBoundary() {
        // 4095 ASCII bytes then "é" (2 bytes) straddling the 4096 cap: the "é" is left out whole.
        let body = Array(String(repeating: "a", count: 4095).utf8) + Array("é tail".utf8)
        let e = StorageError.http(status: 500, body: body, path: path)
        #expect(e.serverResponse == String(repeating: "a", count: 4095))
        #expect(e.message.count < 400)   // the message quotes a short excerpt
        let exact = Array(String(repeating: "b", count: 5000).utf8)
        #expect(StorageError.http(status: 500, body: exact, path: path).serverResponse?.utf8.count == 4096)
        let emoji = Array(String(repeating: "😀", count: 2000).utf8)  // 4 bytes each: 1024 fit
        #expect(StorageError.http(status: 500, body: emoji, path: path).serverResponse == String(repeating: "😀", count: 1024))
    }

    @Test func invalidUTF8BodyIsLossy() {
        let e = StorageError.http(status: 502, body: [0x66, 0xFF, 0x6F], path: path)
        #expect(e.serverResponse == "f\u{FFFD}o")
        #expect(e.code == .unknown)
    }

    @Test func convenienceConstructors() {
        #expect(StorageError.invalidArgument("x") == StorageError(code: .invalidArgument, message: "x"))
        #expect(StorageError.path("p").code == .pathError)
        #expect("\(StorageError.path("bad"))" == "FBS_ERR_PATH: bad")
    }
}
