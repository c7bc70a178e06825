// The account the Apple SDK's integration tests sign in with (their Credentials.swift asks for
// one to be filled in): run.sh creates it in the emulator's Auth before the tests.
enum Credentials {
  static let kUserName = "storage-integration@example.com"
  static let kPassword = "storage-integration-password"
}
