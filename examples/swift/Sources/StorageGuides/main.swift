// Runs the "Cloud Storage on Apple platforms" and Firebase Auth guides' snippets against the emulator
// that FIREBASE_STORAGE_EMULATOR_HOST names (its port serves Auth too: FIREBASE_AUTH_EMULATOR_HOST is
// set to it), in a working directory holding GoogleService-Info.plist.
// Prints "ok"/"FAIL" per check and "N passed, N failed"; exits non-zero on any failure.
import FirebaseCore
import FirebaseStorage
import Foundation

if let emulator = ProcessInfo.processInfo.environment["FIREBASE_STORAGE_EMULATOR_HOST"] {
    setenv("FIREBASE_AUTH_EMULATOR_HOST", emulator, 1)
}
FirebaseApp.configure()

do {
    try await Fixtures.create()
} catch {
    print("FAIL fixtures: \(error)")
    exit(1)
}
CreateReferenceGuide.run()
await UploadFilesGuide.run()
await FileMetadataGuide.run()
await DownloadFilesGuide.run()
await ListFilesGuide.run()
await DeleteFilesGuide.run()
await AuthGuides.run()
print("\(Tally.passed) passed, \(Tally.failed) failed")
exit(Tally.failed == 0 ? 0 : 1)
