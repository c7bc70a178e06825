@testable import FBStorage
import Testing

@Suite struct LoggingTests {
    @Test func urlsKeepTheirShapeButNotTheirSecrets() {
        #expect(LogRedaction.url("http://h:1/v0/b/b/o/a%2Fb") == "http://h:1/v0/b/b/o/a%2Fb")
        #expect(LogRedaction.url("http://h:1/v0/b/b/o?name=x&upload_id=SECRET&upload_protocol=resumable")
                == "http://h:1/v0/b/b/o?name=x&upload_id=REDACTED&upload_protocol=resumable")
        #expect(LogRedaction.url("https://h/o/x?alt=media&token=T1&pageToken=T2&delete_token=T3&create_token=true")
                == "https://h/o/x?alt=media&token=REDACTED&pageToken=REDACTED&delete_token=REDACTED&create_token=REDACTED")
        #expect(LogRedaction.url("http://h/o?flag&Upload_ID=S&=v") == "http://h/o?flag&Upload_ID=REDACTED&=v")
    }

    @Test func errorsLoseTheCredentialsTheRequestSent() {
        let headers = [(name: "Authorization", value: "Firebase ID-TOKEN"), (name: "X-Firebase-AppCheck", value: "APP-CHECK")]
        let secrets = AuthTokens.secrets(in: headers)
        let echoed = StorageError(code: .unauthorized, message: "Server: bad ID-TOKEN and APP-CHECK",
                                  httpStatus: 403, serverResponse: "{\"message\":\"Firebase ID-TOKEN\"}")
        let redacted = echoed.redacting(secrets)
        #expect(redacted.message == "Server: bad REDACTED and REDACTED")
        #expect(redacted.serverResponse == "{\"message\":\"REDACTED\"}")   // the whole header value first
        #expect(redacted.code == .unauthorized && redacted.httpStatus == 403)
        #expect(echoed.redacting([""]) == echoed)
    }

    @Test func aHandlerReceivesLinesUntilRemoved() {
        let lines = Lines()
        LogHook.setHandler { level, line in lines.append("\(level.rawValue) \(line)") }
        LogHook.log(.warning, "logging test: one")
        LogHook.setHandler(nil)
        LogHook.log(.warning, "logging test: two")
        // Tests running meanwhile may log too: look at this test's lines only.
        #expect(lines.all.filter { $0.contains("logging test") } == ["2 logging test: one"])
    }
}

private final class Lines: @unchecked Sendable {
    private let lock = ConditionLock()
    private var lines: [String] = []
    func append(_ line: String) { lock.withLock { lines.append(line) } }
    var all: [String] { lock.withLock { lines } }
}
