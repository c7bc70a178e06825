// Apps, storages and waiting helpers for the FirebaseStorage tests: each test gets its own app and a
// fresh bucket on the shared emulator of its flavor.
import Dispatch
import EmulatorProcess
import FirebaseCore
import FirebaseStorage
import Foundation

enum Emulators {
    static let production = EmulatorProcess.launch(.production)
    static let firebaseTools = EmulatorProcess.launch(.firebaseTools)

    static func port(_ flavor: Flavor) -> Int {
        flavor == .production ? production : firebaseTools
    }
}

/// The queue the tests' storages call back on, recognisable from inside a callback.
enum TestQueue {
    static let key = DispatchSpecificKey<String>()
    static let queue: DispatchQueue = {
        let queue = DispatchQueue(label: "firebase-storage-tests")
        queue.setSpecific(key: key, value: "firebase-storage-tests")
        return queue
    }()

    static var isCurrent: Bool { DispatchQueue.getSpecific(key: key) == "firebase-storage-tests" }
}

/// A storage of a new app on a fresh bucket of the `flavor` emulator, calling back on `TestQueue`.
func makeStorage(_ flavor: Flavor) -> Storage {
    let id = UUID().uuidString.lowercased()
    let options = FirebaseOptions(googleAppID: "1:1234:ios:\(id)", gcmSenderID: "1234")
    options.storageBucket = "bucket-\(id.prefix(8))"
    options.projectID = "demo-tests"
    FirebaseApp.configure(name: "app-\(id)", options: options)
    let storage = Storage.storage(app: FirebaseApp.app(name: "app-\(id)")!)
    storage.useEmulator(withHost: "127.0.0.1", port: Emulators.port(flavor))
    storage.callbackQueue = TestQueue.queue
    return storage
}

/// Waits for a callback-style operation's single call.
func called<T>(_ start: (@escaping (T) -> Void) -> Void) async -> T {
    await withCheckedContinuation { continuation in start { continuation.resume(returning: $0) } }
}

/// Random bytes.
func randomData(_ count: Int) -> Data {
    Data((0..<count).map { _ in UInt8.random(in: 0...255) })
}

/// A collector of values from callbacks on any thread.
final class Recorder<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var values: [Value] = []

    func add(_ value: Value) { lock.withLock { values.append(value) } }
    var all: [Value] { lock.withLock { values } }
}
