// Helpers for the HTTP engine tests: the local test server, blocking-free waiting for transfers,
// echo decoding and small utilities. (Named *Tests.swift to stay within the engine's test files.)
import FoundationEssentials
import Glibc
import Testing

@testable import FBStorage

/// The Python test server (Tests/support/http_test_server.py), started once per test process. It
/// exits when its stdin reaches EOF, i.e. when this process exits.
struct TestServer: Sendable {
    let port: Int

    static let shared = TestServer.launch()

    var base: String { "http://127.0.0.1:\(port)" }

    func url(_ path: String) -> String { base + path }

    static var supportDirectory: String {
        let file = "\(#filePath)"
        let tests = file[..<file.lastIndex(of: "/")!]                // Tests/FBStorageTests
        return String(tests[..<tests.lastIndex(of: "/")!]) + "/support"
    }

    private static func launch() -> TestServer {
        var stdinPipe: [Int32] = [0, 0], stdoutPipe: [Int32] = [0, 0]
        precondition(pipe(&stdinPipe) == 0 && pipe(&stdoutPipe) == 0)
        for fd in stdinPipe + stdoutPipe { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }   // dup2 clears it in the child
        let script = supportDirectory + "/http_test_server.py"
        var pid = pid_t()
        let status = ChildProcess.spawn(["python3", script], stdin: stdinPipe[0], stdout: stdoutPipe[1], pid: &pid)
        precondition(status == 0, "cannot start python3 \(script): \(status)")
        close(stdinPipe[0])
        close(stdoutPipe[1])
        // stdinPipe[1] stays open (and close-on-exec) for the life of this process.
        var line: [UInt8] = []
        var byte: UInt8 = 0
        while read(stdoutPipe[0], &byte, 1) == 1, byte != 0x0A { line.append(byte) }
        close(stdoutPipe[0])
        guard let port = Int(String(decoding: line, as: UTF8.self)) else {
            fatalError("test server printed no port")
        }
        return TestServer(port: port)
    }

    /// Runs a command to completion; returns its exit status.
    static func run(_ args: [String]) -> Int32 {
        var pid = pid_t()
        guard ChildProcess.spawn(args, pid: &pid) == 0 else { return -1 }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return (status >> 8) & 0xFF
    }
}

/// What `/echo` returns.
struct Echo: Decodable {
    var method: String
    var path: String
    var headers: [[String]]
    var length: Int
    var md5: String
    var crc32: UInt32

    func header(_ name: String) -> String? {
        headers.first { $0[0].lowercased() == name.lowercased() }?[1]
    }

    static func decode(_ response: HTTPResponse) throws -> Echo {
        try JSONDecoder().decode(Echo.self, from: Data(response.body))
    }
}

/// Sets a value once from any thread; waits for it without blocking a thread.
final class OneShot<Value: Sendable>: Sendable {
    private let state = Locked<(value: Value?, waiter: CheckedContinuation<Value, Never>?)>((nil, nil))

    func fulfill(_ value: Value) {
        let waiter = state.withLock { s -> CheckedContinuation<Value, Never>? in
            guard s.value == nil else { return nil }
            s.value = value
            defer { s.waiter = nil }
            return s.waiter
        }
        waiter?.resume(returning: value)
    }

    var value: Value {
        get async {
            await withCheckedContinuation { continuation in
                let ready = state.withLock { s -> Value? in
                    if s.value == nil { s.waiter = continuation }
                    return s.value
                }
                if let ready { continuation.resume(returning: ready) }
            }
        }
    }

    var peek: Value? { state.withLock { $0.value } }
}

/// The library's lock doubles as a thread-safe box for test bookkeeping from callbacks.
extension Locked {
    var value: Value { withLock { $0 } }
}

typealias TransferResult = Result<HTTPResponse, TransportError>

extension HTTPEngine {
    /// Runs one transfer to completion.
    func run(
        _ request: HTTPRequest,
        onUploadProgress: (@Sendable (Int64) -> Void)? = nil,
        onResponseHead: (@Sendable (Int, HTTPHeaders) -> Bool)? = nil,
        onBodyData: (@Sendable (UnsafeRawBufferPointer) -> Bool)? = nil,
        maxBufferedBody: Int = 64 << 20
    ) async -> TransferResult {
        let done = OneShot<TransferResult>()
        start(request, TransferCallbacks(
            onUploadProgress: onUploadProgress, onResponseHead: onResponseHead, onBodyData: onBodyData,
            maxBufferedBody: maxBufferedBody, onComplete: { done.fulfill($0) }))
        return await done.value
    }

    /// Runs `work` on the transfer thread and waits for it.
    func onThread<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        let done = OneShot<T>()
        perform { done.fulfill(work()) }
        return await done.value
    }
}

extension Result where Success == HTTPResponse, Failure == TransportError {
    /// The response, or a test failure.
    func response(sourceLocation: SourceLocation = #_sourceLocation) throws -> HTTPResponse {
        switch self {
        case .success(let r): return r
        case .failure(let e):
            Issue.record("transfer failed: \(e)", sourceLocation: sourceLocation)
            throw e
        }
    }

    var failure: TransportError? {
        if case .failure(let e) = self { return e }
        return nil
    }
}

/// Bytes 0, 1, ... 250, 0, 1, ...: what the server's /download and /chunked send.
func patternBytes(_ count: Int, seed: Int = 0) -> [UInt8] {
    (0..<count).map { UInt8(truncatingIfNeeded: ($0 + seed) % 251) }
}

/// zlib's CRC-32, to compare with the server's.
func crc32(_ bytes: some Sequence<UInt8>) -> UInt32 {
    var crc: UInt32 = 0xFFFF_FFFF
    for byte in bytes {
        crc ^= UInt32(byte)
        for _ in 0..<8 { crc = (crc >> 1) ^ (0xEDB8_8320 & (0 &- (crc & 1))) }
    }
    return ~crc
}

/// A temporary file holding `bytes` (or `size` pattern bytes); removed by `remove()`.
struct TempFile {
    let path: String
    let fd: Int32

    init(bytes: [UInt8]) {
        self.init(size: 0)
        bytes.withUnsafeBytes { p in
            var written = 0
            while written < p.count { written += write(fd, p.baseAddress! + written, p.count - written) }
        }
    }

    /// A file of `size` pattern bytes, written in 1 MiB pieces.
    init(size: Int) {
        var template = Array("/tmp/fbs-http-test-XXXXXX".utf8CString)
        fd = mkstemp(&template)
        precondition(fd >= 0)
        path = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let piece = patternBytes(251 * 4096)
        var left = size
        while left > 0 {
            let n = min(left, piece.count)
            piece.withUnsafeBytes { p in precondition(write(fd, p.baseAddress!, n) == n) }
            left -= n
        }
    }

    func remove() {
        close(fd)
        unlink(path)
    }
}

func monotonicSeconds() -> Double {
    Double(MonotonicClock.nanoseconds()) / 1e9
}

/// Current resident set size of this process in bytes (from /proc/self/statm).
func residentBytes() -> Int {
    let fd = open("/proc/self/statm", O_RDONLY)
    guard fd >= 0 else { return 0 }
    defer { close(fd) }
    var buf = [UInt8](repeating: 0, count: 128)
    let n = read(fd, &buf, buf.count)
    guard n > 0 else { return 0 }
    let fields = String(decoding: buf[0..<n], as: UTF8.self).split(separator: " ")
    return (fields.count > 1 ? Int(fields[1]) ?? 0 : 0) * Int(sysconf(Int32(_SC_PAGESIZE)))
}
