// The Firebase Auth guides for Apple platforms on accounts ("Link multiple auth providers", "Manage
// users": profile, verification email, email, password, password reset, unlinking; "Authenticate
// with Firebase using email link"): the Swift snippets of the Auth quickstart they are taken from
// (quickstart-ios, authentication/LegacyAuthQuickstart), verbatim between the START/END markers,
// inside the quickstart's own action methods. What is UIKit (spinners, prompts, the table) is a
// stand-in below that records what the user would see; the multi-factor branch of sign-in, phone
// numbers and Google's sign-in UI are left out (noted at each). Where the guide has the user click
// the link in a mail, the run reads the code from the emulator (its oobCodes route).
import FirebaseAuth
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The quickstart's view controller helpers: each action ends in `hideSpinner`, which the run waits for.
class GuideViewController {
    var messages: [String] = []
    /// What the next `showTextInputPrompt` "types".
    var input: String?
    let tableView = TableView()
    private var waiting: CheckedContinuation<Void, Never>?

    final class TableView {
        func reloadData() {}
    }

    func showSpinner(_ completion: () -> Void) { completion() }

    func hideSpinner(_ completion: () -> Void) {
        completion()
        let waiting = waiting
        self.waiting = nil
        waiting?.resume()
    }

    func showMessagePrompt(_ message: String) { messages.append(message) }

    func showTextInputPrompt(withMessage message: String, completionBlock: (Bool, String?) -> Void) {
        completionBlock(true, input)
    }

    func showTypicalUIForUserUpdateResults(withTitle resultsTitle: String, error: Error?) {
        if let error = error { showMessagePrompt("\(resultsTitle): \(error.localizedDescription)") }
    }

    /// Runs an action and waits for its `hideSpinner`; answers the messages it showed.
    func perform(input: String? = nil, _ action: () -> Void) async -> [String] {
        messages = []
        self.input = input
        await withCheckedContinuation { continuation in
            waiting = continuation
            action()
        }
        return messages
    }
}

/// The quickstart's MainViewController (linking, profile, verification, email, password, unlinking).
final class AccountGuide: GuideViewController {
    let kSetDisplayNameTitle = "Set Display Name"
    let kChangeEmailText = "Change Email"
    let kChangePasswordText = "Change Password"

    // The sign-in branch's multi-factor handling (MultiFactorResolver, phone factors) is left out.
    func firebaseLogin(_ credential: AuthCredential) {
      showSpinner {
        if let user = Auth.auth().currentUser {
          // [START link_credential]
          user.link(with: credential) { authResult, error in
            // [START_EXCLUDE]
            self.hideSpinner {
              if let error = error {
                self.showMessagePrompt(error.localizedDescription)
                return
              }
              self.tableView.reloadData()
            }
            // [END_EXCLUDE]
          }
          // [END link_credential]
        } else {
          Auth.auth().signIn(with: credential) { authResult, error in
            self.hideSpinner {
              if let error = error {
                self.showMessagePrompt(error.localizedDescription)
                return
              }
            }
          }
        }
      }
    }

    /// Google's sign-in UI (GIDSignIn) is left out: `idToken` and `authentication` stand for what it gives.
    func googleCredential(idToken: String, authentication: (idToken: String?, accessToken: String)) -> AuthCredential {
      // [START google_credential]
      let credential = GoogleAuthProvider.credential(withIDToken: idToken,
                                                     accessToken: authentication.accessToken)
      // [END google_credential]
      return credential
    }

    func unlink(providerID: String?) {
      showSpinner {
        // [START unlink_provider]
        Auth.auth().currentUser?.unlink(fromProvider: providerID!) { user, error in
          // [START_EXCLUDE]
          self.hideSpinner {
            if let error = error {
              self.showMessagePrompt(error.localizedDescription)
              return
            }
            self.tableView.reloadData()
          }
          // [END_EXCLUDE]
        }
        // [END unlink_provider]
      }
    }

    func didSetDisplayName(_ sender: AnyObject) {
      showTextInputPrompt(withMessage: "Display Name:") { userPressedOK, userInput in
        if let displayName = userInput {
          self.showSpinner {
            // [START profile_change]
            let changeRequest = Auth.auth().currentUser?.createProfileChangeRequest()
            changeRequest?.displayName = displayName
            changeRequest?.commitChanges { error in
              // [START_EXCLUDE]
              self.hideSpinner {
                self.showTypicalUIForUserUpdateResults(
                  withTitle: self.kSetDisplayNameTitle,
                  error: error as NSError?
                )
              }
              // [END_EXCLUDE]
            }
            // [END profile_change]
          }
        } else {
          self.showMessagePrompt("displayname can't be empty")
        }
      }
    }

    func didRequestVerifyEmail(_ sender: AnyObject) {
      showSpinner {
        // [START send_verification_email]
        Auth.auth().currentUser?.sendEmailVerification { error in
          // [START_EXCLUDE]
          self.hideSpinner {
            if let error = error {
              self.showMessagePrompt(error.localizedDescription)
              return
            }
            self.showMessagePrompt("Sent")
          }
          // [END_EXCLUDE]
        }
        // [END send_verification_email]
      }
    }

    @available(*, deprecated, message: "as the guide's updateEmail(to:)")
    func didChangeEmail(_ sender: AnyObject) {
      showTextInputPrompt(withMessage: "Email Address:") { userPressedOK, userInput in
        if let email = userInput {
          self.showSpinner {
            // [START change_email]
            Auth.auth().currentUser?.updateEmail(to: email) { error in
              // [START_EXCLUDE]
              self.hideSpinner {
                self.showTypicalUIForUserUpdateResults(withTitle: self.kChangeEmailText, error: error)
              }
              // [END_EXCLUDE]
            }
            // [END change_email]
          }
        } else {
          self.showMessagePrompt("email can't be empty")
        }
      }
    }

    func didChangePassword(_ sender: AnyObject) {
      showTextInputPrompt(withMessage: "New Password:") { userPressedOK, userInput in
        if let password = userInput {
          self.showSpinner {
            // [START change_password]
            Auth.auth().currentUser?.updatePassword(to: password) { error in
              // [START_EXCLUDE]
              self.hideSpinner {
                self.showTypicalUIForUserUpdateResults(
                  withTitle: self.kChangePasswordText,
                  error: error
                )
              }
              // [END_EXCLUDE]
            }
            // [END change_password]
          }
        } else {
          self.showMessagePrompt("password can't be empty")
        }
      }
    }
}

/// The quickstart's EmailViewController: the password reset request.
final class PasswordResetGuide: GuideViewController {
    func didRequestPasswordReset(_ sender: AnyObject) {
      showTextInputPrompt(withMessage: "Email:") { [weak self] userPressedOK, email in
        guard let strongSelf = self, let email = email else {
          return
        }
        strongSelf.showSpinner {
          // [START password_reset]
          Auth.auth().sendPasswordReset(withEmail: email) { error in
            // [START_EXCLUDE]
            strongSelf.hideSpinner {
              if let error = error {
                strongSelf.showMessagePrompt(error.localizedDescription)
                return
              }
              strongSelf.showMessagePrompt("Sent")
            }
            // [END_EXCLUDE]
          }
          // [END password_reset]
        }
      }
    }
}

/// The quickstart's PasswordlessViewController (email-link sign-in). Its text field is `email`;
/// the bundle id, which Linux programs do not have, is the guide's example one.
final class PasswordlessGuide: GuideViewController {
    var email: String?
    var link: String!
    let bundleIdentifier: String? = "com.example.ios"

    func didTapSignInWithEmailLink(_ sender: AnyObject) {
      if let email = email {
        showSpinner {
          // [START signin_emaillink]
          Auth.auth().signIn(withEmail: email, link: self.link) { user, error in
            // [START_EXCLUDE]
            self.hideSpinner {
              if let error = error {
                self.showMessagePrompt(error.localizedDescription)
                return
              }
            }
            // [END_EXCLUDE]
          }
          // [END signin_emaillink]
        }
      } else {
        showMessagePrompt("Email can't be empty")
      }
    }

    func didTapSendSignInLink(_ sender: AnyObject) {
      if let email = email {
        showSpinner {
          // [START action_code_settings]
          let actionCodeSettings = ActionCodeSettings()
          actionCodeSettings.url = URL(string: "https://www.example.com")
          // The sign-in operation has to always be completed in the app.
          actionCodeSettings.handleCodeInApp = true
          actionCodeSettings.linkDomain = "your.custom.domain.com"
          actionCodeSettings.setIOSBundleID(bundleIdentifier!)
          actionCodeSettings.setAndroidPackageName("com.example.android",
                                                   installIfNotAvailable: false, minimumVersion: "12")
          // [END action_code_settings]
          // [START send_signin_link]
          Auth.auth().sendSignInLink(toEmail: email,
                                     actionCodeSettings: actionCodeSettings) { error in
            // [START_EXCLUDE]
            self.hideSpinner {
              // [END_EXCLUDE]
              if let error = error {
                self.showMessagePrompt(error.localizedDescription)
                return
              }
              // The link was successfully sent. Inform the user.
              // Save the email locally so you don't need to ask the user for it again
              // if they open the link on the same device.
              UserDefaults.standard.set(email, forKey: "Email")
              self.showMessagePrompt("Check your email for link")
              // [START_EXCLUDE]
            }
            // [END_EXCLUDE]
          }
          // [END send_signin_link]
        }
      } else {
        showMessagePrompt("Email can't be empty")
      }
    }
}

protocol EmailChanging {
    func didChangeEmail(_ sender: AnyObject)
}

extension AccountGuide: EmailChanging {}

enum AccountGuides {
    static func run() async {
        let email = "account-\(UUID().uuidString.prefix(8).lowercased())@example.com"
        let guide = AccountGuide()
        let anonymous = try? await Auth.auth().signInAnonymously().user
        check(anonymous?.isAnonymous == true, "accounts: an anonymous user to begin with")

        var shown = await guide.perform { guide.firebaseLogin(EmailAuthProvider.credential(withEmail: email, password: "guide-password")) }
        let user = Auth.auth().currentUser
        check(shown.isEmpty && user?.uid == anonymous?.uid && user?.email == email && user?.isAnonymous == false,
              "linking: the anonymous user links an email and password and keeps its uid")

        shown = await guide.perform { guide.didRequestVerifyEmail(guide) }
        check(shown == ["Sent"], "users: sendEmailVerification sends")
        // The user opens the mail and clicks its link.
        await clickMailedCode("VERIFY_EMAIL", for: email)
        try? await user?.reload()
        check(user?.isEmailVerified == true, "users: after the link is applied, reload shows isEmailVerified")

        shown = await guide.perform(input: "Guide User") { guide.didSetDisplayName(guide) }
        check(shown.isEmpty && user?.displayName == "Guide User", "users: the profile change request sets the display name")

        let changed = "changed-\(email)"
        shown = await guide.perform(input: changed) { changeEmail(guide) }
        check(shown.isEmpty && user?.email == changed, "users: updateEmail(to:) changes the email")
        shown = await guide.perform(input: "another-guide-password") { guide.didChangePassword(guide) }
        check(shown.isEmpty, "users: updatePassword(to:) changes the password")

        let google = guide.googleCredential(idToken: #"{"sub": "guide-\#(UUID())", "email": "guide@gmail.com", "email_verified": true}"#,
                                            authentication: (idToken: nil, accessToken: "google-access-token"))
        shown = await guide.perform { guide.firebaseLogin(google) }
        check(shown.isEmpty && Auth.auth().currentUser?.uid == anonymous?.uid, "linking: a Google credential links to the same user")
        shown = await guide.perform { guide.unlink(providerID: GoogleAuthProvider.id) }
        check(shown.isEmpty, "linking: unlink(fromProvider:) removes Google")

        try? Auth.auth().signOut()
        let reset = PasswordResetGuide()
        shown = await reset.perform(input: changed) { reset.didRequestPasswordReset(reset) }
        check(shown == ["Sent"], "users: sendPasswordReset(withEmail:) sends")
        if let code = await mailedCode("PASSWORD_RESET", for: changed) {
            try? await Auth.auth().confirmPasswordReset(withCode: code, newPassword: "reset-guide-password")
        }
        let signedIn = try? await Auth.auth().signIn(withEmail: changed, password: "reset-guide-password")
        check(signedIn?.user.uid == anonymous?.uid, "users: the reset password signs in")

        try? Auth.auth().signOut()
        let passwordless = PasswordlessGuide()
        passwordless.email = "link-\(email)"
        shown = await passwordless.perform { passwordless.didTapSendSignInLink(passwordless) }
        check(shown == ["Check your email for link"], "email link: sendSignInLink sends")
        passwordless.link = await mailedCode("EMAIL_SIGNIN", for: "link-\(email)", field: "oobLink")
        check(Auth.auth().isSignIn(withEmailLink: passwordless.link ?? ""), "email link: the mailed link is a sign-in link")
        shown = await passwordless.perform { passwordless.didTapSignInWithEmailLink(passwordless) }
        let linked = Auth.auth().currentUser
        check(shown.isEmpty && linked?.email == "link-\(email)" && linked?.isEmailVerified == true,
              "email link: signIn(withEmail:link:) signs in with a verified email")
        try? await linked?.delete()
    }

    /// The guide's deprecated `updateEmail(to:)`, reached through a protocol: no deprecation warning in the run.
    private static func changeEmail(_ guide: AccountGuide) { (guide as EmailChanging).didChangeEmail(guide) }

    /// What the link in the mail carries, from the emulator's list of "mailed" codes.
    static func mailedCode(_ requestType: String, for email: String, field: String = "oobCode") async -> String? {
        let host = ProcessInfo.processInfo.environment["FIREBASE_STORAGE_EMULATOR_HOST"] ?? "127.0.0.1:9199"
        guard let (data, _) = try? await URLSession.shared.data(from: URL(string: "http://\(host)/emulator/v1/projects/demo-project/oobCodes")!),
              let listed = (try? JSONSerialization.jsonObject(with: data) as? [String: Any])?["oobCodes"] as? [[String: Any]] else {
            return nil
        }
        return listed.last { $0["requestType"] as? String == requestType && $0["email"] as? String == email }?[field] as? String
    }

    static func clickMailedCode(_ requestType: String, for email: String) async {
        guard let code = await mailedCode(requestType, for: email) else { return check(false, "mail: a \(requestType) code for \(email)") }
        do {
            try await Auth.auth().applyActionCode(code)
        } catch {
            check(false, "mail: applying the \(requestType) code: \(error)")
        }
    }
}
