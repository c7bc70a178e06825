// Stands in for the sample app that hosts the Apple SDK's Auth API tests (AuthenticationExample,
// whose AppDelegate calls FirebaseApp.configure() before any test runs). XCTest on Linux has no
// host app: this class is discovered first (run.sh checks the order with --list-tests), and its
// class setUp configures the default app from GoogleService-Info.plist beside the executable.
import FirebaseCore
import XCTest

class AAAppHost: XCTestCase {
  override class func setUp() {
    if FirebaseApp.app() == nil { FirebaseApp.configure() }
  }

  func testTheHostConfiguredTheDefaultApp() {
    XCTAssertNotNil(FirebaseApp.app())
  }
}
