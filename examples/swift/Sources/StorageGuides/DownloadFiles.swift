// "Download files with Cloud Storage on Apple platforms": the guide's snippets, verbatim between the
// START/END markers.
import FirebaseStorage
import Foundation

enum DownloadFilesGuide {
    static func run() async {
        let storageRef = Storage.storage().reference()

        let memory = inMemory(storageRef)
        check(await finished(memory).status == .success, "download: getData in memory")

        let disk = toDisk(storageRef)
        check(await finished(disk).status == .success && FileManager.default.contents(atPath: "path/to/image") == Fixtures.image,
              "download: write(toFile:)")

        downloadURL(storageRef)
        let url = try? await storageRef.child("images/stars.jpg").downloadURL()
        check(url?.query?.contains("token=") == true, "download: downloadURL")

        let managed = manage(storageRef)
        check(errorCode(await finished(managed)) == .cancelled, "download: pause, resume, cancel")

        // The guide's full example downloads the bucket root, which is no object: the task reports
        // the failure (the Apple SDK stops the program instead).
        let combinedTask = combined(storageRef)
        check(errorCode(await finished(combinedTask)) == .pathError, "download: full example reports a failure")
    }

    static func inMemory(_ storageRef: StorageReference) -> StorageDownloadTask {
        // [START firstorage_download]
        // Create a reference to the file you want to download
        let islandRef = storageRef.child("images/island.jpg")

        // Download in memory with a maximum allowed size of 1MB (1 * 1024 * 1024 bytes)
        islandRef.getData(maxSize: 1 * 1024 * 1024) { data, error in
          if let error = error {
            // Uh-oh, an error occurred!
          } else {
            // Data for "images/island.jpg" is returned
            let image = UIImage(data: data!)
          }
        }
        // [END firstorage_download]
        return islandRef.getData(maxSize: 1 * 1024 * 1024) { _, _ in }
    }

    static func toDisk(_ storageRef: StorageReference) -> StorageDownloadTask {
        // [START firstorage_download_disk]
        // Create a reference to the file you want to download
        let islandRef = storageRef.child("images/island.jpg")

        // Create local filesystem URL
        let localURL = URL(string: "path/to/image")!

        // Download to the local filesystem
        let downloadTask = islandRef.write(toFile: localURL) { url, error in
          if let error = error {
            // Uh-oh, an error occurred!
          } else {
            // Local file URL for "images/island.jpg" is returned
          }
        }
        // [END firstorage_download_disk]
        return downloadTask
    }

    static func downloadURL(_ storageRef: StorageReference) {
        // [START firstorage_download_url]
        // Create a reference to the file you want to download
        let starsRef = storageRef.child("images/stars.jpg")

        // Fetch the download URL
        starsRef.downloadURL { url, error in
          if let error = error {
            // Handle any errors
          } else {
            // Get the download URL for 'images/stars.jpg'
          }
        }
        // [END firstorage_download_url]
    }

    static func manage(_ storageRef: StorageReference) -> StorageDownloadTask {
        let localFile = URL(string: "path/to/downloaded-image")!

        // [START firstorage_download_pause]
        // Start downloading a file
        let downloadTask = storageRef.child("images/mountains.jpg").write(toFile: localFile)

        // Pause the download
        downloadTask.pause()

        // Resume the download
        downloadTask.resume()

        // Cancel the download
        downloadTask.cancel()
        // [END firstorage_download_pause]

        // [START firstorage_handle_observer]
        // Create a task listener handle
        let observer = downloadTask.observe(.progress) { snapshot in
        // A progress event occurred
        }

        // Remove an individual observer
        downloadTask.removeObserver(withHandle: observer)

        // Remove all observers of a particular status
        downloadTask.removeAllObservers(for: .progress)

        // Remove all observers
        downloadTask.removeAllObservers()
        // [END firstorage_handle_observer]
        return downloadTask
    }

    static func combined(_ storageRef: StorageReference) -> StorageDownloadTask {
        let localURL = URL(string: "path/to/downloaded-image")!

        // [START firstorage_download_combined]
        // Create a reference to the file we want to download
        let starsRef = storageRef.child("images/stars.jpg")

        // Start the download (in this case writing to a file)
        let downloadTask = storageRef.write(toFile: localURL)

        // Observe changes in status
        downloadTask.observe(.resume) { snapshot in
          // Download resumed, also fires when the download starts
        }

        downloadTask.observe(.pause) { snapshot in
          // Download paused
        }

        downloadTask.observe(.progress) { snapshot in
          // Download reported progress
          let percentComplete = 100.0 * Double(snapshot.progress!.completedUnitCount)
            / Double(snapshot.progress!.totalUnitCount)
        }

        downloadTask.observe(.success) { snapshot in
          // Download completed successfully
        }

        // Errors only occur in the "Failure" case
        downloadTask.observe(.failure) { snapshot in
          guard let errorCode = (snapshot.error as? NSError)?.code else {
            return
          }
          guard let error = StorageErrorCode(rawValue: errorCode) else {
            return
          }
          switch (error) {
          case .objectNotFound:
            // File doesn't exist
            break
          case .unauthorized:
            // User doesn't have permission to access file
            break
          case .cancelled:
            // User cancelled the download
            break

          /* ... */

          case .unknown:
            // Unknown error occurred, inspect the server response
            break
          default:
            // Another error occurred. This is a good place to retry the download.
            break
          }
        }
        // [END firstorage_download_combined]
        return downloadTask
    }
}
