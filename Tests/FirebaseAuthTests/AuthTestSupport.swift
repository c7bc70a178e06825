// Apps, auths and event streams for the FirebaseAuth tests: one emulator per flavor with owner-only
// storage rules, verified/ also wanting a verified email (its storage port serves Auth too), a new
// app per test, sessions kept in a temporary XDG_CONFIG_HOME.
import EmulatorProcess
import FirebaseAuth
import FirebaseCore
import Foundation

enum AuthEmulators {
    static let ownerRules = """
        rules_version = '2';
        service firebase.storage {
          match /b/{bucket}/o {
            match /users/{uid}/{file=**} { allow read, write: if request.auth.uid == uid; }
            match /verified/{uid}/{file=**} {
              allow read, write: if request.auth.uid == uid && request.auth.token.email_verified == true;
            }
          }
        }
        """
    /// ID tokens live an hour, so each test's token dates are known.
    static let tokenLifetime = 3600

    private static func launch(_ flavor: Flavor) -> Int {
        let rules = FileManager.default.temporaryDirectory.appendingPathComponent("owner-\(UUID()).rules")
        try! ownerRules.write(to: rules, atomically: true, encoding: .utf8)
        return EmulatorProcess.launch(flavor, arguments: ["--rules", rules.path, "--no-auth",
                                                          "--auth-token-lifetime", String(tokenLifetime)])
    }

    static let production = launch(.production)
    static let firebaseTools = launch(.firebaseTools)

    static func port(_ flavor: Flavor) -> Int { flavor == .production ? production : firebaseTools }
}

/// Where `Auth.auth(app:)` keeps sessions during the tests (set before any auth exists).
enum SessionDirectory {
    static let path: String = {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("auth-config-\(UUID())").path
        setenv("XDG_CONFIG_HOME", directory, 1)
        return directory
    }()
}

/// The queue the tests' auths call back on, recognisable from inside a callback.
enum AuthTestQueue {
    static let key = DispatchSpecificKey<String>()
    static let queue: DispatchQueue = {
        let queue = DispatchQueue(label: "firebase-auth-tests")
        queue.setSpecific(key: key, value: "firebase-auth-tests")
        return queue
    }()

    static var isCurrent: Bool { DispatchQueue.getSpecific(key: key) == "firebase-auth-tests" }
}

/// A new app (its own name, so its own session file) with a bucket on the `flavor` emulator.
func makeApp(_ flavor: Flavor, name: String = "app-\(UUID().uuidString.lowercased())") -> FirebaseApp {
    _ = SessionDirectory.path
    let options = FirebaseOptions(googleAppID: "1:1234:ios:\(name)", gcmSenderID: "1234")
    options.apiKey = "fake-api-key"
    options.projectID = "demo-tests"
    options.storageBucket = "bucket-\(UUID().uuidString.lowercased().prefix(8))"
    FirebaseApp.configure(name: name, options: options)
    return FirebaseApp.app(name: name)!
}

/// The auth of a new app on the `flavor` emulator, calling back on `AuthTestQueue`.
func makeAuth(_ flavor: Flavor) -> Auth {
    configured(Auth.auth(app: makeApp(flavor)), flavor)
}

func configured(_ auth: Auth, _ flavor: Flavor) -> Auth {
    auth.useEmulator(withHost: "127.0.0.1", port: AuthEmulators.port(flavor))
    auth.callbackQueue = AuthTestQueue.queue
    return auth
}

/// A fresh email address.
func newEmail() -> String { "user-\(UUID().uuidString.lowercased().prefix(12))@example.com" }

/// Waits for a callback-style operation's single call.
func called<T>(_ start: (@escaping (T) -> Void) -> Void) async -> T {
    await withCheckedContinuation { continuation in start { continuation.resume(returning: $0) } }
}

/// The `AuthErrorCode` and domain of an error, read as the Apple guides do.
func authCode(_ error: Error?) -> (AuthErrorCode?, String?) {
    guard let error = error as NSError? else { return (nil, nil) }
    return (AuthErrorCode(rawValue: error.code), error.domain)
}

/// What a listener hears: the uid (nil: signed out), and whether the call ran on the auth's
/// callback queue.
struct Heard: Equatable {
    let uid: String?
    let onQueue: Bool
}

/// A listener's calls as a stream to await one by one.
final class ListenerEvents: @unchecked Sendable {
    let stream: AsyncStream<Heard>
    private let continuation: AsyncStream<Heard>.Continuation
    private var iterator: AsyncStream<Heard>.Iterator
    private let lock = NSLock()
    private var calls = 0

    init() {
        (stream, continuation) = AsyncStream.makeStream(of: Heard.self)
        iterator = stream.makeAsyncIterator()
    }

    func record(_ user: User?) {
        lock.withLock { calls += 1 }
        continuation.yield(Heard(uid: user?.uid, onQueue: AuthTestQueue.isCurrent))
    }

    /// How many calls there were.
    var count: Int { lock.withLock { calls } }

    /// The next call (the test's time limit ends a wait for one that never comes).
    func next() async -> Heard? { await iterator.next() }
}
