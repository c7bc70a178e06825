// The Firebase Auth guides for Apple platforms ("Authenticate with Firebase anonymously", "…using
// password-based accounts", "…with a custom auth system", "Manage users", "Verify ID tokens"):
// their Swift snippets, verbatim between the START/END markers, except that a check stands where a
// guide writes `// ...` or `// User is signed in.` and the UIKit parts are left out (noted at each).
// The run waits for each snippet's effect with an ID-token listener.
import FirebaseAuth
import Foundation

enum AuthGuides {
    static let email = "guide-\(UUID().uuidString.prefix(8).lowercased())@example.com"
    static let password = "guide-password"

    static func run() async {
        await anonymous()
        await password()
        await customToken()
        await ManageUsersGuide().run()
        await AccountGuides.run()
    }

    // "Authenticate with Firebase anonymously": the sign-in, then (in its completion) the user's data.
    static func anonymous() async {
        // [START firebase_auth_anonymous]
        Auth.auth().signInAnonymously { authResult, error in
          // [START anonymous_user_data]
          guard let user = authResult?.user else { return }
          let isAnonymous = user.isAnonymous  // true
          let uid = user.uid
          // [END anonymous_user_data]
          check(isAnonymous && !uid.isEmpty && error == nil, "auth: signInAnonymously gives an anonymous user")
        }
        // [END firebase_auth_anonymous]
        let user = await authState { $0?.isAnonymous == true }
        check(user?.isAnonymous == true, "auth: the anonymous user is the current user")
    }

    // "Authenticate with Firebase using password-based accounts": create a user, then sign in.
    static func password() async {
        let email = email, password = password
        // [START create_user]
        Auth.auth().createUser(withEmail: email, password: password) { authResult, error in
          check(authResult?.user.email == email && error == nil, "auth: createUser signs in the new user")
        }
        // [END create_user]
        check(await authState { $0?.email == email } != nil, "auth: the new user is the current user")

        // [START signout]
        let firebaseAuth = Auth.auth()
        do {
          try firebaseAuth.signOut()
        } catch let signOutError as NSError {
          print("Error signing out: %@", signOutError)
        }
        // [END signout]
        check(Auth.auth().currentUser == nil, "auth: signOut forgets the user")

        let controller = PasswordSignIn()
        await controller.signIn(email: email, password: password)
        check(await authState { $0?.email == email } != nil, "auth: signIn(withEmail:) signs in")
        withExtendedLifetime(controller) {}

        let wrong = await withCheckedContinuation { continuation in
            Auth.auth().signIn(withEmail: email, password: "not-the-password") { _, error in
                continuation.resume(returning: error)
            }
        }
        check(AuthErrorCode(rawValue: (wrong as NSError?)?.code ?? 0) == .wrongPassword
                  && (wrong as NSError?)?.domain == AuthErrors.domain && Auth.auth().currentUser?.email == email,
              "auth: a wrong password fails with wrongPassword and keeps the user")
    }

    /// The guide's sign-in runs in a view controller (`[weak self]`); this class stands in for it.
    final class PasswordSignIn {
        let attempts = 0

        func signIn(email: String, password: String) async {
            // [START headless_email_auth]
            Auth.auth().signIn(withEmail: email, password: password) { [weak self] authResult, error in
              guard let strongSelf = self else { return }
              check(authResult != nil && error == nil && strongSelf.attempts == 0, "auth: signIn(withEmail:) completes")
            }
            // [END headless_email_auth]
        }
    }

    // "Authenticate with Firebase using a custom auth system": the token from "your server" is an
    // unsigned one, as firebase-admin mints against an Auth emulator.
    static func customToken() async {
        let customToken: String? = unsignedCustomToken(uid: "guide-custom-user")
        // [START signinwithcustomtoken]
        Auth.auth().signIn(withCustomToken: customToken ?? "") { user, error in
          check(user?.user.uid == "guide-custom-user" && error == nil, "auth: signIn(withCustomToken:) completes")
        }
        // [END signinwithcustomtoken]
        check(await authState { $0?.uid == "guide-custom-user" } != nil, "auth: the custom-token user is the current user")
    }

    static func unsignedCustomToken(uid: String) -> String {
        func encoded(_ object: [String: Any]) -> String {
            try! JSONSerialization.data(withJSONObject: object).base64EncodedString()
                .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                .replacingOccurrences(of: "=", with: "")
        }
        let now = Int(Date().timeIntervalSince1970)
        return encoded(["alg": "none", "typ": "JWT"]) + "." + encoded([
            "aud": "https://identitytoolkit.googleapis.com/google.identity.identitytoolkit.v1.IdentityToolkit",
            "uid": uid, "iat": now, "exp": now + 3600,
        ]) + "."
    }
}

/// "Manage users in Firebase": the state listener, the current user, the profile, ID tokens, deletion.
final class ManageUsersGuide {
    var handle: AuthStateDidChangeListenerHandle?
    var heard: [String?] = []

    func run() async {
        let signedIn = Auth.auth().currentUser?.uid
        let firstCall = await withCheckedContinuation { continuation in
            // [START auth_listener]
            handle = Auth.auth().addStateDidChangeListener { auth, user in
              self.heard.append(user?.uid)
              if self.heard.count == 1 { continuation.resume(returning: user?.uid) }
            }
            // [END auth_listener]
        }
        check(firstCall == signedIn, "users: the state listener is called at once with the current user")

        // [START current_user]
        if Auth.auth().currentUser != nil {
          check(true, "users: currentUser is set while signed in")
        } else {
          check(false, "users: currentUser is set while signed in")
        }
        // [END current_user]

        // [START get_user_profile]
        let user = Auth.auth().currentUser
        // [END get_user_profile]
        // The guide's loop over `user.multiFactor.enrolledFactors` is left out: no multi-factor support.
        // [START user_profile]
        if let user = user {
          // The user's ID, unique to the Firebase project.
          // Do NOT use this value to authenticate with your backend server,
          // if you have one. Use getTokenWithCompletion:completion: instead.
          let uid = user.uid
          let email = user.email
          let photoURL = user.photoURL
          check(uid == signedIn && email == nil && photoURL == nil, "users: the profile of the current user")
        }
        // [END user_profile]

        // "Verify ID tokens" writes `FIRAuth.auth()?.currentUser`, the pre-Firebase-5 name of this line.
        let gotToken = await withCheckedContinuation { continuation in
            let currentUser = Auth.auth().currentUser
            currentUser?.getIDTokenForcingRefresh(true) { idToken, error in
              if let error = error {
                // Handle error
                continuation.resume(returning: false)
                return;
              }

              // Send token to your backend via HTTPS
              continuation.resume(returning: idToken?.split(separator: ".", omittingEmptySubsequences: false).count == 3)
            }
        }
        check(gotToken, "users: getIDTokenForcingRefresh gives a JWT")

        let deleted = await withCheckedContinuation { continuation in
            // [START delete_user]
            let user = Auth.auth().currentUser

            user?.delete { error in
              if let error = error {
                // An error happened.
                continuation.resume(returning: false)
              } else {
                // Account deleted.
                continuation.resume(returning: true)
              }
            }
            // [END delete_user]
        }
        check(deleted, "users: delete succeeds")
        check(await authState { $0 == nil } == nil && Auth.auth().currentUser == nil, "users: delete signs out")

        // [START remove_auth_listener]
        Auth.auth().removeStateDidChangeListener(handle!)
        // [END remove_auth_listener]
        check(heard == [signedIn, nil], "users: the state listener heard the sign-out")
    }
}

/// Waits until `Auth.auth().currentUser` satisfies `condition`, and returns it: an ID-token listener
/// hears the user at once and after every change.
func authState(_ condition: @escaping (User?) -> Bool) async -> User? {
    final class Waiting: @unchecked Sendable {
        var handle: NSObjectProtocol?
        var done = false
    }
    let waiting = Waiting()
    let user = await withCheckedContinuation { continuation in
        waiting.handle = Auth.auth().addIDTokenDidChangeListener { _, user in
            // Calls run one at a time on the auth's callback queue.
            guard !waiting.done, condition(user) else { return }
            waiting.done = true
            continuation.resume(returning: user)
        }
    }
    Auth.auth().removeIDTokenDidChangeListener(waiting.handle!)
    return user
}
