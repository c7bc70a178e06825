// The Apple App Check guides' Swift code, unchanged between the markers, compiled against this
// package's FirebaseAppCheck: firebase.google.com/docs/app-check/ios/debug-provider ("Use the debug
// provider") and firebase.google.com/docs/app-check/ios/custom-provider ("Implement the App Check
// protocols", "Initialize App Check"). Outside the markers: what the guides leave to the reader
// (`tokenFromServer`, `expirationFromServer`: what the guide's elided backend call answers; here
// the test's backend, the emulator's token mint) and the functions the tests call.
import FirebaseAppCheck
import FirebaseCore
import Foundation

/// What the guide's backend call answers (set by the test before a token is asked for).
nonisolated(unsafe) var tokenFromServer = ""
nonisolated(unsafe) var expirationFromServer: TimeInterval = 0

// --- custom-provider guide, "Implement the App Check protocols" ---
class YourCustomAppCheckProvider: NSObject, AppCheckProvider {
  var app: FirebaseApp

  init(withFirebaseApp app: FirebaseApp) {
    self.app = app
    super.init()
  }

  func getToken() async throws -> AppCheckToken {
    let getTokenTask = Task { () -> AppCheckToken in
      // ...

      // Create AppCheckToken object.
      let exp = Date(timeIntervalSince1970: expirationFromServer)
      let token = AppCheckToken(
        token: tokenFromServer,
        expirationDate: exp
      )

      if Date() > exp {
        throw NSError(domain: "ExampleError", code: 1, userInfo: nil)
      }

      return token
    }

    return try await getTokenTask.value
  }
}

class YourCustomAppCheckProviderFactory: NSObject, AppCheckProviderFactory {
  func createProvider(with app: FirebaseApp) -> AppCheckProvider? {
    return YourCustomAppCheckProvider(withFirebaseApp: app)
  }
}
// --- end ---

/// The custom-provider guide's "Initialize App Check", up to (not including) its
/// `FirebaseApp.configure()`, which reads GoogleService-Info.plist: the tests configure their apps.
func installGuideCustomProviderFactory() {
  // --- custom-provider guide, "Initialize App Check" ---
  let providerFactory = YourCustomAppCheckProviderFactory()
  AppCheck.setAppCheckProviderFactory(providerFactory)
  // --- end ---
}

/// The debug-provider guide's code, likewise.
func installGuideDebugProviderFactory() {
  // --- debug-provider guide, "Use the debug provider" ---
  let providerFactory = AppCheckDebugProviderFactory()
  AppCheck.setAppCheckProviderFactory(providerFactory)
  // --- end ---
}

/// The guides' `FirebaseApp.configure()` line, compiled: the tests configure named apps instead.
func guidesConfigureLine() {
  FirebaseApp.configure()
}
