// Runs the "Cloud Storage on Apple platforms" guides' snippets against the emulator that
// FIREBASE_STORAGE_EMULATOR_HOST names, in a working directory holding GoogleService-Info.plist.
// Prints "ok"/"FAIL" per check and "N passed, N failed"; exits non-zero on any failure.
import FirebaseCore
import FirebaseStorage
import Foundation

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
print("\(Tally.passed) passed, \(Tally.failed) failed")
exit(Tally.failed == 0 ? 0 : 1)
