// "Delete files with Cloud Storage on Apple platforms": the guide's snippets, verbatim between the
// START/END markers.
import FirebaseStorage
import Foundation

enum DeleteFilesGuide {
    static func run() async {
        let storageRef = Storage.storage().reference()

        // [START firstorage_delete]
        // Create a reference to the file to delete
        let desertRef = storageRef.child("desert.jpg")

        do {
          // Delete the file
          try await desertRef.delete()
        } catch {
          // ...
        }
        // [END firstorage_delete]
        do {
            _ = try await desertRef.getMetadata()
            check(false, "delete: the object is gone")
        } catch {
            check(StorageErrorCode(rawValue: (error as NSError).code) == .objectNotFound, "delete: the object is gone")
        }

        let error = await withCheckedContinuation { continuation in
            // The guide's completion-handler form, on an object that no longer exists.
            desertRef.delete { error in
              continuation.resume(returning: error)
            }
        }
        check((error as? NSError)?.domain == "FIRStorageErrorDomain", "delete: errors are NSErrors")
    }
}
