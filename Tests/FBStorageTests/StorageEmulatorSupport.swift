// The bundled emulator for the service-layer tests: one process per flavor (EmulatorProcess).
import FoundationEssentials
import Glibc
import Testing

// Exported: the emulator launcher, `Flavor`, `ChildProcess` and `Thread` serve every file of these tests.
@_exported import EmulatorProcess
@testable import FBStorage

struct Emulator: Sendable {
    let port: Int
    let flavor: Flavor

    static let production = launch(.production)
    static let firebaseTools = launch(.firebaseTools)

    static func shared(_ flavor: Flavor) -> Emulator {
        flavor == .production ? production : firebaseTools
    }

    var base: String { "http://127.0.0.1:\(port)" }

    private static func launch(_ flavor: Flavor) -> Emulator {
        Emulator(port: EmulatorProcess.launch(flavor), flavor: flavor)
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
