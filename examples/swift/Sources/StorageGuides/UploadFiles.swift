// "Upload files with Cloud Storage on Apple platforms": the guide's snippets, verbatim between the
// START/END markers; each function returns its tasks so the run can wait for them.
import FirebaseStorage
import Foundation

enum UploadFilesGuide {
    static func run() async {
        let references = root()
        check(references.0.name == references.1.name && references.0.fullPath != references.1.fullPath,
              "upload: same names, different paths")

        let memoryTask = inMemory()
        check(await finished(memoryTask).status == .success, "upload: putData in memory")

        let diskTask = fromDisk()
        let disk = await finished(diskTask)
        check(disk.status == .success && disk.metadata?.size == Int64(Fixtures.image.count), "upload: putFile from disk")

        let (dataTask, fileTask) = withMetadata()
        let withType = await finished(dataTask)
        check(withType.metadata?.contentType == "image/jpeg", "upload: putData with metadata")
        check(await finished(fileTask).metadata?.contentType == "image/jpeg", "upload: putFile with metadata")

        // The guide's pause/resume/cancel and full examples upload to the bucket root (`storageRef`),
        // which Cloud Storage refuses: the task reports a pathError failure (the Apple SDK stops the
        // program instead).
        check(errorCode(await finished(manage())) == .pathError, "upload: pause, resume, cancel report a failure")
        check(errorCode(await finished(combined())) == .pathError, "upload: full example reports a failure")
    }

    static func root() -> (StorageReference, StorageReference) {
        let storage = Storage.storage()

        // [START firstorage_upload]
        // Create a root reference
        let storageRef = storage.reference()

        // Create a reference to "mountains.jpg"
        let mountainsRef = storageRef.child("mountains.jpg")

        // Create a reference to 'images/mountains.jpg'
        let mountainImagesRef = storageRef.child("images/mountains.jpg")

        // While the file names are the same, the references point to different files
        mountainsRef.name == mountainImagesRef.name;            // true
        mountainsRef.fullPath == mountainImagesRef.fullPath;    // false
        // [END firstorage_upload]
        return (mountainsRef, mountainImagesRef)
    }

    static func inMemory() -> StorageUploadTask {
        let storageRef = Storage.storage().reference()

        // [START firstorage_memory]
        // Data in memory
        let data = Data()

        // Create a reference to the file you want to upload
        let riversRef = storageRef.child("images/rivers.jpg")

        // Upload the file to the path "images/rivers.jpg"
        let uploadTask = riversRef.putData(data, metadata: nil) { (metadata, error) in
          guard let metadata = metadata else {
            // Uh-oh, an error occurred!
            return
          }
          // Metadata contains file metadata such as size, content-type.
          let size = metadata.size
          // You can also access to download URL after upload.
          riversRef.downloadURL { (url, error) in
            guard let downloadURL = url else {
              // Uh-oh, an error occurred!
              return
            }
          }
        }
        // [END firstorage_memory]
        return uploadTask
    }

    static func fromDisk() -> StorageUploadTask {
        let storageRef = Storage.storage().reference()

        // [START firstorage_disk]
        // File located on disk
        let localFile = URL(string: "path/to/image")!

        // Create a reference to the file you want to upload
        let riversRef = storageRef.child("images/rivers.jpg")

        // Upload the file to the path "images/rivers.jpg"
        let uploadTask = riversRef.putFile(from: localFile, metadata: nil) { metadata, error in
          guard let metadata = metadata else {
            // Uh-oh, an error occurred!
            return
          }
          // Metadata contains file metadata such as size, content-type.
          let size = metadata.size
          // You can also access to download URL after upload.
          riversRef.downloadURL { (url, error) in
            guard let downloadURL = url else {
              // Uh-oh, an error occurred!
              return
            }
          }
        }
        // [END firstorage_disk]
        return uploadTask
    }

    static func withMetadata() -> (StorageUploadTask, StorageUploadTask) {
        let storageRef = Storage.storage().reference()
        let data = Fixtures.image
        let localFile = URL(string: "path/to/image")!

        // [START firstorage_metadata]
        // Create storage reference
        let mountainsRef = storageRef.child("images/mountains.jpg")

        // Create file metadata including the content type
        let metadata = StorageMetadata()
        metadata.contentType = "image/jpeg"

        // Upload data and metadata
        mountainsRef.putData(data, metadata: metadata)

        // Upload file and metadata
        mountainsRef.putFile(from: localFile, metadata: metadata)
        // [END firstorage_metadata]
        return (storageRef.child("images/mountains-data.jpg").putData(data, metadata: metadata),
                storageRef.child("images/mountains-file.jpg").putFile(from: localFile, metadata: metadata))
    }

    static func manage() -> StorageUploadTask {
        let storageRef = Storage.storage().reference()
        let localFile = URL(string: "path/to/image")!

        // [START firstorage_pause]
        // Start uploading a file
        let uploadTask = storageRef.putFile(from: localFile)

        // Pause the upload
        uploadTask.pause()

        // Resume the upload
        uploadTask.resume()

        // Cancel the upload
        uploadTask.cancel()
        // [END firstorage_pause]

        // [START firstorage_progress]
        // Add a progress observer to an upload task
        let observer = uploadTask.observe(.progress) { snapshot in
          // A progress event occured
        }
        // [END firstorage_progress]

        // [START firstorage_task]
        // Remove an individual observer
        uploadTask.removeObserver(withHandle: observer)

        // Remove all observers of a particular status
        uploadTask.removeAllObservers(for: .progress)

        // Remove all observers
        uploadTask.removeAllObservers()
        // [END firstorage_task]
        return uploadTask
    }

    static func combined() -> StorageUploadTask {
        let storageRef = Storage.storage().reference()

        // [START firstorage_upload_combined]
        // Local file you want to upload
        let localFile = URL(string: "path/to/image")!

        // Create the file metadata
        let metadata = StorageMetadata()
        metadata.contentType = "image/jpeg"

        // Upload file and metadata to the object 'images/mountains.jpg'
        let uploadTask = storageRef.putFile(from: localFile, metadata: metadata)

        // Listen for state changes, errors, and completion of the upload.
        uploadTask.observe(.resume) { snapshot in
          // Upload resumed, also fires when the upload starts
        }

        uploadTask.observe(.pause) { snapshot in
          // Upload paused
        }

        uploadTask.observe(.progress) { snapshot in
          // Upload reported progress
          let percentComplete = 100.0 * Double(snapshot.progress!.completedUnitCount)
            / Double(snapshot.progress!.totalUnitCount)
        }

        uploadTask.observe(.success) { snapshot in
          // Upload completed successfully
        }

        uploadTask.observe(.failure) { snapshot in
          if let error = snapshot.error as? NSError {
            switch (StorageErrorCode(rawValue: error.code)!) {
            case .objectNotFound:
              // File doesn't exist
              break
            case .unauthorized:
              // User doesn't have permission to access file
              break
            case .cancelled:
              // User canceled the upload
              break

            /* ... */

            case .unknown:
              // Unknown error occurred, inspect the server response
              break
            default:
              // A separate error occurred. This is a good place to retry the upload.
              break
            }
          }
        }
        // [END firstorage_upload_combined]
        return uploadTask
    }
}
