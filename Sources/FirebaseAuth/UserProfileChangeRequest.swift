import FBStorage
import Foundation

/// A change of a user's display name and photo URL, as in the Apple SDK: from
/// `User.createProfileChangeRequest()`, set the properties, then `commitChanges`. A property left
/// untouched keeps its value; one set to nil deletes it. A request commits once.
open class UserProfileChangeRequest: NSObject {
    private weak var user: User?
    private let lock = NSLock()
    private var displayNameChange = ProfileChange.unchanged
    private var photoURLChange = ProfileChange.unchanged
    private var committed = false

    init(user: User) {
        self.user = user
    }

    /// The display name to set; nil deletes it.
    open var displayName: String? {
        get { lock.withLock { Self.value(of: displayNameChange) } }
        set { lock.withLock { displayNameChange = newValue.map(ProfileChange.set) ?? .delete } }
    }

    /// The photo URL to set; nil deletes it.
    open var photoURL: URL? {
        get { lock.withLock { Self.value(of: photoURLChange).flatMap(URL.init(string:)) } }
        set { lock.withLock { photoURLChange = newValue.map { .set($0.absoluteString) } ?? .delete } }
    }

    /// Sends the changes (Identity Toolkit `accounts:update`); `completion` runs on the auth's
    /// callback queue. The user's properties show the new values before it runs.
    open func commitChanges(completion: ((Error?) -> Void)? = nil) {
        let changes = lock.withLock { () -> (ProfileChange, ProfileChange)? in
            defer { committed = true }
            return committed ? nil : (displayNameChange, photoURLChange)
        }
        let done = completion.map { completion in { (result: Result<Void, NSError>) in
            if case .failure(let error) = result { completion(error) } else { completion(nil) }
        } }
        guard let changes else {
            return DispatchQueue.global().async {
                done?(.failure(AuthErrorCode.internalError.error(reason: "commitChanges was already called on this request.")))
            }
        }
        guard let user else {
            return DispatchQueue.global().async {
                done?(.failure(AuthErrorCode.nullUser.error(reason: "The user of this request no longer exists.")))
            }
        }
        user.commitProfileChanges(displayName: changes.0, photoURL: changes.1, completion: done)
    }

    open func commitChanges() async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, Error>) in
            commitChanges { error in
                if let error { continuation.resume(throwing: error) } else { continuation.resume() }
            }
        }
    }

    private static func value(of change: ProfileChange) -> String? {
        if case .set(let value) = change { value } else { nil }
    }
}
