// FirebaseAppCheck against emulators of both flavors that enforce App Check (tokens living 3 s):
// the debug provider and the guides' custom provider (answering from a Task of its own) serve
// Storage.storage(app:) with no other code; a custom provider's limited-use token; refusal without
// a provider, with the server's App Check message; the AppCheckTokenDidChange posts. Serialized:
// the provider factory and FIREBASE_APP_CHECK_EMULATOR_HOST are process-wide (this suite runs in a
// process of its own, see mk/swift.mk).
import EmulatorProcess
import FirebaseAppCheck
import FirebaseCore
import FirebaseStorage
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

enum AppCheckEmulators {
    static let project = "demo-appcheck"
    static let debugSecret = "swift-ci-debug-secret"

    private static func launch(_ flavor: Flavor) -> Int {
        EmulatorProcess.launch(flavor, arguments: ["--project", project, "--no-auth", "--app-check", "enforce",
                                                   "--app-check-debug-token", debugSecret, "--app-check-token-ttl", "3"])
    }

    static let production = launch(.production)
    static let firebaseTools = launch(.firebaseTools)

    static func port(_ flavor: Flavor) -> Int { flavor == .production ? production : firebaseTools }
}

/// A new app on the `flavor` emulator whose App Check exchanges there; made after the test has
/// installed its factory, as the guides order it.
func makeApp(_ flavor: Flavor) -> FirebaseApp {
    setenv("FIREBASE_APP_CHECK_EMULATOR_HOST", "127.0.0.1:\(AppCheckEmulators.port(flavor))", 1)
    let name = "appcheck-\(UUID().uuidString.lowercased())"
    let options = FirebaseOptions(googleAppID: "1:1234:ios:\(name.suffix(12))", gcmSenderID: "1234")
    options.apiKey = "fake-api-key"
    options.projectID = AppCheckEmulators.project
    options.storageBucket = "bucket-\(UUID().uuidString.lowercased().prefix(8))"
    FirebaseApp.configure(name: name, options: options)
    return FirebaseApp.app(name: name)!
}

func storage(of app: FirebaseApp, _ flavor: Flavor) -> Storage {
    let storage = Storage.storage(app: app)
    storage.useEmulator(withHost: "127.0.0.1", port: AppCheckEmulators.port(flavor))
    storage.maxOperationRetryTime = 10
    storage.maxUploadRetryTime = 10
    return storage
}

/// A token of the emulator's mint (what the guide's backend would answer).
func mintToken(_ flavor: Flavor, limitedUse: Bool = false) async throws -> (token: String, expires: TimeInterval) {
    var request = URLRequest(url: URL(string: "http://127.0.0.1:\(AppCheckEmulators.port(flavor))/_emulator/app-check/tokens")!)
    request.httpMethod = "POST"
    request.setValue("application/json", forHTTPHeaderField: "Content-Type")
    request.httpBody = Data(#"{"appId": "1:1234:ios:minted", "ttlSeconds": 60, "limitedUse": \#(limitedUse)}"#.utf8)
    let (data, _) = try await URLSession.shared.data(for: request)
    let answer = try JSONSerialization.jsonObject(with: data) as? [String: Any]
    let token = try #require(answer?["token"] as? String)
    return (token, Date().timeIntervalSince1970 + 60)
}

func roundTrip(_ storage: Storage, _ path: String, _ bytes: Data) async throws {
    let reference = storage.reference(withPath: path)
    let metadata = try await reference.putDataAsync(bytes)
    #expect(metadata.size == Int64(bytes.count))
    #expect(try await reference.data(maxSize: Int64(bytes.count) + 1) == bytes)
}

/// The guide's debug provider factory, installed with the debug secret in the environment
/// until `remove()`.
private struct GuideDebugProvider {
    init() {
        setenv("FIREBASE_APP_CHECK_DEBUG_TOKEN", AppCheckEmulators.debugSecret, 1)
        installGuideDebugProviderFactory()
    }

    func remove() {
        AppCheck.setAppCheckProviderFactory(nil)
        unsetenv("FIREBASE_APP_CHECK_DEBUG_TOKEN")
    }
}

@Suite("FirebaseAppCheck with FirebaseStorage against enforcing emulators", .serialized, .timeLimit(.minutes(1)))
struct AppCheckTests {
    @Test("the guide's debug provider factory: the app's storage uploads and downloads with no other code",
          arguments: Flavor.allCases)
    func debugProvider(flavor: Flavor) async throws {
        let guideProvider = GuideDebugProvider()
        defer { guideProvider.remove() }
        let app = makeApp(flavor)
        try await roundTrip(storage(of: app, flavor), "ac/debug.bin", Data(repeating: 7, count: 1000))

        let appCheck = try #require(AppCheck.appCheck(app: app))
        let token = try await appCheck.token(forcingRefresh: true)
        #expect(token.token.split(separator: ".").count == 3)
        #expect(token.expirationDate > Date())
        #expect(!"\(token)".contains(token.token), "the description hides the token")
        let provider = try #require(AppCheckDebugProvider(app: app))
        #expect(provider.currentDebugToken() == AppCheckEmulators.debugSecret)
    }

    @Test("every token App Check keeps is posted as AppCheckTokenDidChange with the app's name; limited-use ones are not",
          arguments: Flavor.allCases)
    func tokenChangeNotifications(flavor: Flavor) async throws {
        let guideProvider = GuideDebugProvider()
        defer { guideProvider.remove() }
        let app = makeApp(flavor)
        let appCheck = try #require(AppCheck.appCheck(app: app))
        appCheck.isTokenAutoRefreshEnabled = false   // the tokens posted are the requests'
        let (posts, poster) = AsyncStream<(token: String?, app: String?)>.makeStream()
        let observer = NotificationCenter.default.addObserver(forName: .AppCheckTokenDidChange, object: appCheck, queue: nil) { note in
            poster.yield((note.userInfo?[AppCheckTokenNotificationKey] as? String, note.userInfo?[AppCheckAppNameNotificationKey] as? String))
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        let first = try await appCheck.token(forcingRefresh: false)
        _ = try await appCheck.limitedUseToken()
        let forced = try await appCheck.token(forcingRefresh: true)
        var heard: [(token: String?, app: String?)] = []
        for await post in posts {
            heard.append(post)
            if heard.count == 2 { break }
        }
        #expect(heard.map(\.token) == [first.token, forced.token])
        #expect(heard.allSatisfy { $0.app == app.name })
    }

    @Test("auto-refresh, on by default as Apple's, renews the token in the background with no request", arguments: Flavor.allCases)
    func autoRefresh(flavor: Flavor) async throws {
        let guideProvider = GuideDebugProvider()
        defer { guideProvider.remove() }
        let appCheck = try #require(AppCheck.appCheck(app: makeApp(flavor)))
        #expect(appCheck.isTokenAutoRefreshEnabled)
        let (posts, poster) = AsyncStream<String?>.makeStream()
        let observer = NotificationCenter.default.addObserver(forName: .AppCheckTokenDidChange, object: appCheck, queue: nil) { note in
            poster.yield(note.userInfo?[AppCheckTokenNotificationKey] as? String)
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        let first = try await appCheck.token(forcingRefresh: false)
        var heard: [String?] = []
        for await post in posts {   // renewed halfway through each 3 s life
            heard.append(post)
            if heard.count == 3 { break }
        }
        #expect(heard.first == first.token)
        appCheck.isTokenAutoRefreshEnabled = false
        #expect(!appCheck.isTokenAutoRefreshEnabled)
    }

    @Test("the guide's custom provider, answering from its own Task, serves the app's storage", arguments: Flavor.allCases)
    func customProvider(flavor: Flavor) async throws {
        (tokenFromServer, expirationFromServer) = try await mintToken(flavor)
        installGuideCustomProviderFactory()
        defer { AppCheck.setAppCheckProviderFactory(nil) }
        let app = makeApp(flavor)
        try await roundTrip(storage(of: app, flavor), "ac/custom.bin", Data(repeating: 9, count: 300 * 1024))
        let token = try await AppCheck.appCheck(app: app)!.token(forcingRefresh: false)
        #expect(token.token == tokenFromServer)
    }

    @Test("a provider's limited-use token, and its failure as the Future's error", arguments: Flavor.allCases)
    func limitedUseAndFailure(flavor: Flavor) async throws {
        let factory = MintingFactory(flavor)
        AppCheck.setAppCheckProviderFactory(factory)
        defer { AppCheck.setAppCheckProviderFactory(nil) }
        let appCheck = try #require(AppCheck.appCheck(app: makeApp(flavor)))
        let limited = try await appCheck.limitedUseToken()
        #expect(!limited.token.isEmpty)
        #expect(factory.provider.limitedCalls == 1)
        factory.provider.failNext = true
        let failure = await withCheckedContinuation { continuation in
            appCheck.token(forcingRefresh: true) { token, error in continuation.resume(returning: (token, error as NSError?)) }
        }
        #expect(failure.0 == nil)
        #expect(failure.1?.domain == AppCheckErrorDomain)
        #expect(failure.1?.localizedDescription.contains("the backend said no") == true)
    }

    @Test("without a provider the storage is refused as unauthenticated, with App Check's message", arguments: Flavor.allCases)
    func refusedWithoutProvider(flavor: Flavor) async throws {
        let app = makeApp(flavor)
        let refused = await withCheckedContinuation { continuation in
            storage(of: app, flavor).reference(withPath: "ac/refused.bin").putData(Data("x".utf8)) { _, error in
                continuation.resume(returning: error as NSError?)
            }
        }
        #expect(refused?.domain == StorageErrorDomain)
        #expect(refused?.code == StorageErrorCode.unauthenticated.rawValue)
        #expect((refused?.userInfo["ResponseBody"] as? String)?.contains("App Check") == true)
        let appCheck = try #require(AppCheck.appCheck(app: app))
        do {
            _ = try await appCheck.token(forcingRefresh: false)
            Issue.record("a token without a provider")
        } catch {
            #expect((error as NSError).code == AppCheckErrorCode.invalidConfiguration.rawValue)
        }
    }
}

/// A custom provider (completion form) minting through the emulator from a thread of its own.
final class MintingProvider: NSObject, AppCheckProvider, @unchecked Sendable {
    let flavor: Flavor
    private let lock = NSLock()
    private var limited = 0
    private var fail = false

    init(_ flavor: Flavor) { self.flavor = flavor }

    var limitedCalls: Int { lock.withLock { limited } }
    var failNext: Bool {
        get { lock.withLock { fail } }
        set { lock.withLock { fail = newValue } }
    }

    func getToken(completion handler: @escaping (AppCheckToken?, Error?) -> Void) { mint(limitedUse: false, handler) }

    func getLimitedUseToken(completion handler: @escaping (AppCheckToken?, Error?) -> Void) {
        lock.withLock { limited += 1 }
        mint(limitedUse: true, handler)
    }

    private func mint(limitedUse: Bool, _ handler: @escaping (AppCheckToken?, Error?) -> Void) {
        let shouldFail = lock.withLock { () -> Bool in defer { fail = false }; return fail }
        let flavor = flavor
        nonisolated(unsafe) let handler = handler
        Task.detached {
            if shouldFail { return handler(nil, NSError(domain: "Backend", code: 1, userInfo: [NSLocalizedDescriptionKey: "the backend said no"])) }
            do {
                let minted = try await mintToken(flavor, limitedUse: limitedUse)
                handler(AppCheckToken(token: minted.token, expirationDate: Date(timeIntervalSince1970: minted.expires)), nil)
            } catch {
                handler(nil, error)
            }
        }
    }
}

final class MintingFactory: NSObject, AppCheckProviderFactory, @unchecked Sendable {
    let provider: MintingProvider
    init(_ flavor: Flavor) { provider = MintingProvider(flavor) }
    func createProvider(with app: FirebaseApp) -> AppCheckProvider? { provider }
}
