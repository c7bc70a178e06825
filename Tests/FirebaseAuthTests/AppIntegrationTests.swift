// What the app ties together with no code from the caller: Storage.storage(app:) sends the app's
// Auth user's ID token (owner-only rules, both flavors), and the session outlives the program's
// Auth (kept in a file, restored by the next Auth of an app of the same name and key).
import EmulatorProcess
import FirebaseAuth
import FirebaseCore
import FirebaseStorage
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

@Suite("FirebaseAuth with FirebaseStorage and persistence", .timeLimit(.minutes(1)))
struct AppIntegrationTests {
    @Test("a storage of the app uploads to its user's folder under owner-only rules, not to another's",
          arguments: Flavor.allCases)
    func storageUsesTheAppsAuth(flavor: Flavor) async throws {
        let app = makeApp(flavor)
        // The storage exists before the auth: it still picks up the auth's user.
        let storage = Storage.storage(app: app)
        storage.useEmulator(withHost: "127.0.0.1", port: AuthEmulators.port(flavor))
        let bytes = Data("owner only".utf8)

        let signedOut = await called { done in
            storage.reference(withPath: "users/nobody/a.txt").putData(bytes) { done($1 as NSError?) }
        }
        #expect(signedOut?.domain == StorageErrorDomain)

        let auth = configured(Auth.auth(app: app), flavor)
        let uid = try await auth.signInAnonymously().user.uid
        let metadata = try await storage.reference(withPath: "users/\(uid)/a.txt").putDataAsync(bytes)
        #expect(metadata.size == Int64(bytes.count))
        #expect(try await storage.reference(withPath: "users/\(uid)/a.txt").data(maxSize: 100) == bytes)

        let other = await called { done in
            storage.reference(withPath: "users/someone-else/a.txt").putData(bytes) { done($1 as NSError?) }
        }
        #expect(other?.code == StorageErrorCode.unauthorized.rawValue)

        try auth.signOut()
        let afterSignOut = await called { done in
            storage.reference(withPath: "users/\(uid)/b.txt").putData(bytes) { done($1 as NSError?) }
        }
        #expect(afterSignOut != nil)
    }

    @Test("a user disabled by an administrator: the next token refresh fails with userDisabled and signs out",
          arguments: Flavor.allCases)
    func disabledUserRefresh(flavor: Flavor) async throws {
        let auth = makeAuth(flavor)
        let user = try await auth.signInAnonymously().user
        try await disable(user.uid, flavor)
        let states = ListenerEvents()
        let handle = auth.addStateDidChangeListener { _, user in states.record(user) }
        #expect(await states.next()?.uid == user.uid)
        let error = await called { done in user.getIDTokenForcingRefresh(true) { done($1) } }
        #expect(authCode(error) == (.userDisabled, AuthErrors.domain))
        #expect(await states.next()?.uid == nil)
        #expect(auth.currentUser == nil)
        auth.removeStateDidChangeListener(handle)
    }

    @Test("a disabled user's next storage request fails unauthenticated with that cause, and the user is signed out",
          arguments: [Flavor.production])
    func disabledUserStorage(flavor: Flavor) async throws {
        let app = makeApp(flavor)
        let auth = configured(Auth.auth(app: app), flavor)
        let storage = Storage.storage(app: app)
        storage.useEmulator(withHost: "127.0.0.1", port: AuthEmulators.port(flavor))
        let uid = try await auth.signInAnonymously().user.uid
        let ref = storage.reference(withPath: "users/\(uid)/a.txt")
        _ = try await ref.putDataAsync(Data("a".utf8))
        try await disable(uid, flavor)
        let error = await called { done in ref.putData(Data("b".utf8)) { done($1 as NSError?) } }
        #expect(error?.code == StorageErrorCode.unauthenticated.rawValue)
        let reason = error?.userInfo[NSLocalizedFailureReasonErrorKey] as? String ?? ""
        #expect(reason.contains("disabled"))
        #expect(auth.currentUser == nil)
    }

    /// Disables an account through the emulator's admin route, as firebase-admin's `update_user` does.
    private func disable(_ uid: String, _ flavor: Flavor) async throws {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(AuthEmulators.port(flavor))"
                                          + "/identitytoolkit.googleapis.com/v1/projects/demo-project/accounts:update")!)
        request.httpMethod = "POST"
        request.setValue("Bearer owner", forHTTPHeaderField: "Authorization")
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = try JSONSerialization.data(withJSONObject: ["localId": uid, "disableUser": true])
        let (_, response) = try await URLSession.shared.data(for: request)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
    }

    @Test("the user is kept in XDG_CONFIG_HOME/fbstorage-swift (0600) and signed in again by the next run's Auth",
          arguments: [Flavor.production])
    func persistence(flavor: Flavor) async throws {
        let name = "persisted-\(UUID().uuidString.lowercased().prefix(8))"
        let first = makeApp(flavor, name: name)
        let auth = configured(Auth.auth(app: first), flavor)
        let email = newEmail()
        let uid = try await auth.createUser(withEmail: email, password: "secret-password").user.uid

        let directory = SessionDirectory.path + "/fbstorage-swift"
        let files = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasPrefix(name + "-") }
        #expect(files.count == 1 && files.first?.hasSuffix(".json") == true)
        let file = directory + "/" + (files.first ?? "")
        let attributes = try FileManager.default.attributesOfItem(atPath: file)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        #expect(!(try String(contentsOfFile: file, encoding: .utf8)).contains("secret-password"))

        // The program "restarts": a new app of the same name and key has a new Auth, already signed in.
        #expect(await called { done in first.delete { done($0) } })
        let restarted = configured(Auth.auth(app: makeApp(flavor, name: name)), flavor)
        #expect(restarted !== auth)
        let restored = try #require(restarted.currentUser)
        #expect(restored.uid == uid && restored.email == email && !restored.isAnonymous)
        #expect(restored.providerData.map(\.uid) == [email] && restored.metadata.creationDate != nil)  // kept in the file
        let token = try await restored.getIDTokenResult()
        #expect(token.claims["user_id"] as? String == uid && token.signInProvider == "password")

        try restarted.signOut()
        #expect(!FileManager.default.fileExists(atPath: file))
    }
}
