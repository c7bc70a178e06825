@testable import FBStorage
import Testing

/// The pure parts of docs/field.md: custom endpoints, CA discovery's order, the speed limiter.
@Suite struct FieldTests {
    @Test func customEndpoints() throws {
        let https = try Endpoint.custom(url: "https://storage.example.com")
        #expect(https.origin == "https://storage.example.com:443" && https.isSecureOrLoopback)
        let http = try Endpoint.custom(url: "HTTP://[::1]:9199/")
        #expect(http.origin == "http://[::1]:9199" && http.isLoopback)
        #expect(try Endpoint.custom(url: "http://10.0.0.2").port == 80)
        #expect(try !Endpoint.custom(url: "http://10.0.0.2").isSecureOrLoopback)
        for bad in ["", "ftp://h", "https://", "https://h/p", "https://u@h", "https://h?q", "https://h:0", " https://h", "https://h h"] {
            #expect(throws: StorageError.self, "\(bad)") { try Endpoint.custom(url: bad) }
        }
    }

    /// What no retry fixes fails at once with its own code; a resolver that did not answer is retried.
    @Test func transportFailuresAreClassified() {
        let subject = RequestSubject.service("test call")
        func outcome(_ error: TransportError) -> AttemptOutcome {
            AttemptOutcome(.failure(error), subject: subject, settings: StorageSettings(), mayRefreshToken: false)
        }
        func failedCode(_ outcome: AttemptOutcome) -> StorageErrorCode? {
            if case .fail(let error) = outcome { error.code } else { nil }
        }
        #expect(failedCode(outcome(.hostNotFound(host: "firebasestorage.tset"))) == .hostNotFound)
        #expect(failedCode(outcome(.rejectedByLibcurl(message: "libcurl refused CURLOPT_BUFFERSIZE: x"))) == .internalError)
        #expect(failedCode(outcome(.invalidRequest(message: "invalid request header field"))) == .invalidArgument)
        guard case .retry = outcome(.failed(code: 6, message: "Could not resolve host (Temporary failure in name resolution)")) else {
            Issue.record("a resolver failure must be retried")
            return
        }
        guard case .retry = outcome(.handshakeInterrupted(message: "SSL connect error: Connection reset by peer")) else {
            Issue.record("a connection cut during the TLS handshake must be retried")
            return
        }
        #expect(failedCode(outcome(.failed(code: 35, message: "SSL connect error: wrong version number"))) == .tls)
        if case .fail(let error) = outcome(.hostNotFound(host: "firebasestorage.tset")) {
            #expect(error.message.contains("firebasestorage.tset"))
        }
    }

    /// The loopback grace is the storage's setting; 0 gives up at the first refusal.
    @Test func loopbackGraceComesFromTheSettings() {
        var patient = Backoff(deadline: 100, refusedGrace: 5, random: { 0 })
        #expect(patient.nextDelay(now: 0, retryAfter: nil, refused: true) != nil)
        #expect(patient.nextDelay(now: 4.9, retryAfter: nil, refused: true) != nil)
        #expect(patient.nextDelay(now: 5, retryAfter: nil, refused: true) == nil)
        var impatient = Backoff(deadline: 100, refusedGrace: 0, random: { 0 })
        #expect(impatient.nextDelay(now: 0, retryAfter: nil, refused: true) == nil)
        #expect(StorageSettings().loopbackRefusedGrace == 2)
    }

    @Test func caDiscoveryFollowsGosOrder() {
        func discover(_ env: [String: String], _ present: Set<String>) -> SystemTrust.Locations {
            SystemTrust.discover(environment: { env[$0] }, exists: { present.contains($0) })
        }
        // Fedora's bundle and Alpine's both present: Fedora's comes first in the list.
        let both = discover([:], ["/etc/ssl/cert.pem", "/etc/pki/tls/certs/ca-bundle.crt", "/etc/pki/tls/certs"])
        #expect(both == .init(file: "/etc/pki/tls/certs/ca-bundle.crt", directory: "/etc/pki/tls/certs"))
        #expect(discover([:], ["/etc/ssl/cert.pem"]) == .init(file: "/etc/ssl/cert.pem", directory: nil))
        // SSL_CERT_FILE replaces the list, even when it does not exist; SSL_CERT_DIR the directories.
        let env = ["SSL_CERT_FILE": "/mine.pem", "SSL_CERT_DIR": "/a:/b"]
        #expect(discover(env, ["/mine.pem", "/b", "/etc/ssl/certs/ca-certificates.crt"]) == .init(file: "/mine.pem", directory: "/b"))
        #expect(discover(["SSL_CERT_FILE": "/missing.pem"], ["/etc/ssl/certs/ca-certificates.crt"]).file == nil)
        #expect(discover(["SSL_CERT_FILE": ""], ["/etc/ssl/certs/ca-certificates.crt"]).file == "/etc/ssl/certs/ca-certificates.crt")
        #expect(discover([:], []) == .init(file: nil, directory: nil))
    }

    @Test func limiterKeepsTheAverageAndFollowsChanges() {
        let cap = SpeedCap()
        var limiter = SpeedLimiter([cap])
        #expect(limiter.delay(now: 1) == 0 && limiter.readSize(1 << 20) == 1 << 20)   // no cap
        cap.bytesPerSecond = 1000
        var now: UInt64 = 1_000_000_000
        #expect(limiter.delay(now: now) == 0)                 // 50 ms of credit (1 s idle, capped)
        #expect(limiter.readSize(1 << 20) == 1024)          // a tenth of the cap, at least 1 KiB
        limiter.moved(2050)                                   // two seconds' worth beyond it: a debt
        #expect(limiter.delay(now: now) == 2_000_000_000)
        now += 500_000_000
        #expect(limiter.delay(now: now) == 1_500_000_000)
        cap.bytesPerSecond = 4000                             // a looser cap pays the rest faster
        #expect(limiter.delay(now: now) == 375_000_000)
        now += 10_000_000_000                                 // idle: at most 50 ms of credit
        #expect(limiter.delay(now: now) == 0)
        limiter.moved(200 + 1)
        #expect(limiter.delay(now: now) == 250_000)
        let task = SpeedCap()
        task.bytesPerSecond = 10
        #expect(SpeedCap.tightest([cap, task]) == 10 && SpeedCap.tightest([SpeedCap(), task]) == 10)
        task.bytesPerSecond = -5
        #expect(task.bytesPerSecond == 0 && SpeedCap.tightest([cap, task]) == 4000)
    }
}
