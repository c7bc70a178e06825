// A failed transfer leaves nothing behind in the pool of easy handles: after each kind of failure,
// every pooled handle is drawn by a burst of downloads, and all succeed. libcurl 7.88 kept a failed
// name lookup's receive buffer past curl_easy_reset, so setting CURLOPT_BUFFERSIZE on that handle
// failed for every later request (issue: one DNS failure broke a storage for good).
import Testing

import CCurl
import Glibc
@testable import FBStorage

@Suite("HTTP easy-handle pool", .serialized)
struct HTTPHandlePoolTests {
    let server = TestServer.shared
    static let poolSize = 4

    /// Each kind of failure: the request, how to run it, and what it must end with.
    struct Failure: Sendable, CustomTestStringConvertible {
        let name: String
        let request: @Sendable (TestServer) -> HTTPRequest
        var onResponseHead: (@Sendable (Int, HTTPHeaders) -> Bool)? = nil
        var maxBufferedBody = 64 << 20
        /// Cancel the transfer once its response head arrived (mid-body).
        var cancelOnHead = false
        let matches: @Sendable (TransportError) -> Bool
        var testDescription: String { name }
    }

    static func curlCode(_ codes: CURLcode...) -> @Sendable (TransportError) -> Bool {
        let raw = codes.map { Int32($0.rawValue) }
        return { if case .failed(let code, _) = $0 { return raw.contains(code) } else { return false } }
    }

    static let failures: [Failure] = [
        // NXDOMAIN where the machine has a resolver; a resolver that cannot answer elsewhere.
        Failure(name: "name lookup", request: { _ in HTTPRequest(method: "GET", url: "http://nonexistent.invalid/echo") },
                matches: { if case .hostNotFound("nonexistent.invalid") = $0 { true } else { curlCode(CURLE_COULDNT_RESOLVE_HOST)($0) } }),
        Failure(name: "refused connection", request: { _ in HTTPRequest(method: "GET", url: "http://127.0.0.1:1/echo") },
                matches: curlCode(CURLE_COULDNT_CONNECT)),
        Failure(name: "timeout", request: { HTTPRequest(method: "GET", url: $0.url("/slow?delay=3"), timeout: 0.3) },
                matches: curlCode(CURLE_OPERATION_TIMEDOUT)),
        Failure(name: "stall", request: { HTTPRequest(method: "GET", url: $0.url("/stall?n=0&delay=5"), stallTimeout: 1) },
                matches: curlCode(CURLE_OPERATION_TIMEDOUT)),
        Failure(name: "connection closed mid-body", request: { HTTPRequest(method: "GET", url: $0.url("/drop")) },
                matches: curlCode(CURLE_PARTIAL_FILE)),
        Failure(name: "connection reset", request: { HTTPRequest(method: "POST", url: $0.url("/reset"), body: BytesBody([1, 2, 3])) },
                matches: curlCode(CURLE_RECV_ERROR, CURLE_SEND_ERROR, CURLE_GOT_NOTHING)),
        Failure(name: "connection cut during the TLS handshake", request: { _ in
                    HTTPRequest(method: "GET", url: "https://127.0.0.1:\(ResettingListener.start())/")
                }, matches: { if case .handshakeInterrupted = $0 { true } else { false } }),
        Failure(name: "not HTTP", request: { HTTPRequest(method: "GET", url: $0.url("/garbage")) },
                matches: curlCode(CURLE_UNSUPPORTED_PROTOCOL, CURLE_WEIRD_SERVER_REPLY)),
        Failure(name: "cancelled mid-transfer", request: { HTTPRequest(method: "GET", url: $0.url("/stall?n=10&delay=3")) },
                cancelOnHead: true, matches: { $0 == .cancelled }),
        Failure(name: "aborted by the head callback", request: { HTTPRequest(method: "GET", url: $0.url("/download?size=100000")) },
                onResponseHead: { _, _ in false }, matches: { $0 == .aborted }),
        Failure(name: "body over its limit", request: { HTTPRequest(method: "GET", url: $0.url("/download?size=100000")) },
                maxBufferedBody: 1000, matches: { $0 == .bodyTooLarge(limit: 1000) }),
        Failure(name: "an option libcurl refuses", request: {
                    // libcurl refuses strings over CURL_MAX_INPUT_LENGTH (8,000,000 bytes).
                    HTTPRequest(method: "GET", url: $0.url("/echo?" + String(repeating: "a", count: 8_000_001)))
                }, matches: { if case .rejectedByLibcurl(let m) = $0 { m.contains("CURLOPT_URL") } else { false } }),
    ]

    @Test("after a failure, every pooled handle serves a download", arguments: failures)
    func poolSurvives(failure: Failure) async throws {
        var tuning = EngineTuning()
        tuning.easyHandlePoolSize = Self.poolSize
        let engine = try HTTPEngine(name: "pool", tuning: tuning)
        defer { engine.shutdown() }
        try await burst(engine)   // the pool is full: the failing transfer draws a pooled handle

        let done = OneShot<TransferResult>()
        let started = Locked<TransferID?>(nil)
        var onHead = failure.onResponseHead
        if failure.cancelOnHead {
            onHead = { _, _ in
                if let id = started.value { engine.cancel(id) }
                return true
            }
        }
        started.withLock { $0 = engine.start(failure.request(server), TransferCallbacks(
            onResponseHead: onHead, maxBufferedBody: failure.maxBufferedBody, onComplete: { done.fulfill($0) })) }
        let result = await done.value
        let error = try #require(result.failure, "\(failure.name) succeeded")
        #expect(failure.matches(error), "\(failure.name) ended with \(error)")

        for _ in 0..<2 { try await burst(engine) }
    }

    /// Twice the pool's size of downloads at once (each with the large receive buffer), so every
    /// pooled handle is drawn; all must succeed with the right bytes.
    func burst(_ engine: HTTPEngine) async throws {
        let size = 200_000
        try await withThrowingTaskGroup(of: HTTPResponse.self) { group in
            for _ in 0..<(2 * Self.poolSize) {
                group.addTask {
                    var request = HTTPRequest(method: "GET", url: server.url("/download?size=\(size)"))
                    request.receivesObjectBytes = true
                    return try await engine.run(request).response()
                }
            }
            for try await response in group {
                #expect(response.status == 200)
                #expect(response.body == patternBytes(size))
            }
        }
    }
}

/// A TCP listener that resets (SO_LINGER 0) every connection it accepts once its first byte
/// arrives: a server that goes away during the TLS handshake. Each runs on a thread of its own for the rest of the
/// process; one is started right before its use.
final class ResettingListener: Sendable {
    let port: Int

    /// Starts a listener; returns its port.
    static func start() -> Int { ResettingListener().port }

    private init() {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(fd, pointer, length) == 0 && listen(fd, 16) == 0 && getsockname(fd, pointer, &length) == 0
            }
        }
        precondition(bound, "cannot listen on 127.0.0.1")
        port = Int(UInt16(bigEndian: address.sin_port))
        var thread = pthread_t()
        let context = UnsafeMutableRawPointer(bitPattern: Int(fd) + 1)   // never nil
        pthread_create(&thread, nil, { context in
            let fd = Int32(Int(bitPattern: context) - 1)
            while true {
                let connection = accept(fd, nil, nil)
                guard connection >= 0 else { continue }
                // Reset once the ClientHello arrives: the handshake has begun (a reset before it
                // could reach curl while it still checks the connect, and read as a refusal).
                var first: UInt8 = 0
                _ = recv(connection, &first, 1, 0)
                var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
                setsockopt(connection, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
                close(connection)
            }
        }, context)
        pthread_detach(thread)
    }
}
