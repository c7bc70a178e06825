// The bundled emulator (python -m fbstorage.emulator) for the service-layer tests: one process per
// flavor, started on a free port and stopped when the test process exits (its stdin closes).
import FoundationEssentials
import Glibc
import Testing

@testable import FBStorage

enum Flavor: String, CaseIterable, Sendable {
    case production
    case firebaseTools = "firebase-tools"
}

struct Emulator: Sendable {
    let port: Int
    let flavor: Flavor

    static let production = launch(.production)
    static let firebaseTools = launch(.firebaseTools)

    static func shared(_ flavor: Flavor) -> Emulator {
        flavor == .production ? production : firebaseTools
    }

    var base: String { "http://127.0.0.1:\(port)" }

    /// The repository root, from this file's path.
    static var repository: String {
        var path = "\(#filePath)"
        for _ in 0..<3 { path = String(path[..<path.lastIndex(of: "/")!]) }
        return path
    }

    private static func launch(_ flavor: Flavor) -> Emulator {
        let venvPython = repository + "/.venv/bin/python"
        let python = access(venvPython, X_OK) == 0 ? venvPython : "python3"
        var stdinPipe: [Int32] = [0, 0], stdoutPipe: [Int32] = [0, 0]
        precondition(pipe(&stdinPipe) == 0 && pipe(&stdoutPipe) == 0)
        for fd in stdinPipe + stdoutPipe { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        var pid = pid_t()
        let status = TestServer.spawn(
            ["env", "PYTHONPATH=\(repository)/bindings/python", python, "-m", "fbstorage.emulator",
             "--host", "127.0.0.1", "--port", "0", "--flavor", flavor.rawValue, "--stop-on-stdin-eof"],
            stdin: stdinPipe[0], stdout: stdoutPipe[1], pid: &pid)
        precondition(status == 0, "cannot start the emulator: \(status)")
        close(stdinPipe[0])
        close(stdoutPipe[1])
        // stdinPipe[1] stays open (and close-on-exec) for the life of this process.
        var line: [UInt8] = []
        var byte: UInt8 = 0
        while read(stdoutPipe[0], &byte, 1) == 1, byte != 0x0A { line.append(byte) }
        let text = String(decoding: line, as: UTF8.self)
        guard text.hasPrefix("READY "), let port = text.split(separator: ":").last.flatMap({ Int($0) }) else {
            fatalError("the emulator printed '\(text)' instead of READY http://HOST:PORT")
        }
        // Keep reading (and dropping) its stdout so it never blocks on a full pipe.
        let reader = stdoutPipe[0]
        Thread.detach { var buffer = [UInt8](repeating: 0, count: 4096); while read(reader, &buffer, 4096) > 0 {} }
        return Emulator(port: port, flavor: flavor)
    }

    /// A storage on a fresh bucket of this emulator.
    func storage(bucket: String = "bucket-\(UInt32.random(in: 0...UInt32.max))") throws -> Storage {
        let storage = try Storage(bucket: bucket)
        try storage.useEmulator(host: "127.0.0.1", port: port)
        return storage
    }

    /// Sends a control request (`/_emulator/...`) or any other raw request to the emulator.
    func raw(_ method: String, _ path: String, body: [UInt8]? = nil, headers: [(name: String, value: String)] = []) throws -> HTTPResponse {
        let engine = try HTTPEngine(name: "emulator-control")
        defer { engine.shutdown() }
        let done = Completion<Result<HTTPResponse, TransportError>>()
        _ = engine.start(HTTPRequest(method: method, url: base + path, headers: headers, body: body.map { BytesBody($0) }),
                         TransferCallbacks(onComplete: { done.complete($0) }))
        return try done.wait().get()
    }
}

enum Thread {
    /// Runs `body` on a detached pthread.
    static func detach(_ body: @escaping @Sendable () -> Void) {
        final class Box: @unchecked Sendable { let body: @Sendable () -> Void; init(_ body: @escaping @Sendable () -> Void) { self.body = body } }
        var thread = pthread_t()
        let box = Unmanaged.passRetained(Box(body)).toOpaque()
        pthread_create(&thread, nil, { context in
            Unmanaged<Box>.fromOpaque(context!).takeRetainedValue().body()
            return nil
        }, box)
        pthread_detach(thread)
    }
}

/// Collects a task's events in order.
final class EventLog: @unchecked Sendable {
    private let lock = Locked<[StorageTaskSnapshot]>([])

    init(_ task: StorageTask) throws {
        for status in [StorageTaskStatus.resume, .progress, .pause, .success, .failure] {
            _ = try task.observe(status) { [lock] snapshot in lock.withLock { $0.append(snapshot) } }
        }
    }

    var events: [StorageTaskSnapshot] { lock.withLock { $0 } }
    var statuses: [StorageTaskStatus] { events.map(\.status) }
}

/// A named local file for upload tests (the extension matters for content types).
struct LocalFile {
    let path: String

    init(bytes: [UInt8], suffix: String) {
        path = "/tmp/fbs-task-test-\(UInt32.random(in: 0...UInt32.max))\(suffix)"
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        precondition(fd >= 0)
        bytes.withUnsafeBytes { p in precondition(write(fd, p.baseAddress!, p.count) == p.count) }
        close(fd)
    }

    func remove() { unlink(path) }

    static func read(_ path: String) -> [UInt8]? {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var result: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = Glibc.read(fd, &buffer, buffer.count)
            guard n > 0 else { break }
            result += buffer[..<n]
        }
        return result
    }
}
