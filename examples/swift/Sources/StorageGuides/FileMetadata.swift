// "Use file metadata with Cloud Storage on Apple platforms": the guide's snippets, verbatim between
// the START/END markers (completion-handler and async forms).
import FirebaseStorage
import Foundation

enum FileMetadataGuide {
    static func run() async {
        let storageRef = Storage.storage().reference()
        let forestRef = storageRef.child("images/forest.jpg")

        await getMetadata(storageRef)
        getMetadataWithCompletion(storageRef)
        check((try? await forestRef.getMetadata())?.size == Int64(Fixtures.image.count), "metadata: getMetadata")

        await changeMetadata(storageRef)
        let changed = try? await forestRef.getMetadata()
        check(changed?.cacheControl == "public,max-age=300" && changed?.contentType == "image/jpeg",
              "metadata: updateMetadata sets fields")

        await deleteMetadata(storageRef)
        let deleted = try? await forestRef.getMetadata()
        check(deleted != nil && deleted?.contentType != "image/jpeg", "metadata: nil deletes a field")

        let custom = StorageMetadata()
        custom.customMetadata = customMetadata()["customMetadata"]
        let withCustom = try? await forestRef.updateMetadata(custom)
        check(withCustom?.customMetadata == ["location": "Yosemite, CA, USA", "activity": "Hiking"],
              "metadata: custom metadata")
    }

    static func getMetadata(_ storageRef: StorageReference) async {
        // [START firstorage_get_metadata_async]
        // Create reference to the file whose metadata we want to retrieve
        let forestRef = storageRef.child("images/forest.jpg")

        // Get metadata properties
        do {
          let metadata = try await forestRef.getMetadata()
        } catch {
          // ...
        }
        // [END firstorage_get_metadata_async]
    }

    static func getMetadataWithCompletion(_ storageRef: StorageReference) {
        // [START firstorage_get_metadata]
        // Create reference to the file whose metadata we want to retrieve
        let forestRef = storageRef.child("images/forest.jpg")

        // Get metadata properties
        forestRef.getMetadata { metadata, error in
          if let error = error {
            // Uh-oh, an error occurred!
          } else {
            // Metadata now contains the metadata for 'images/forest.jpg'
          }
        }
        // [END firstorage_get_metadata]
    }

    static func changeMetadata(_ storageRef: StorageReference) async {
        // [START firstorage_change_metadata]
        // Create reference to the file whose metadata we want to change
        let forestRef = storageRef.child("images/forest.jpg")

        // Create file metadata to update
        let newMetadata = StorageMetadata()
        newMetadata.cacheControl = "public,max-age=300"
        newMetadata.contentType = "image/jpeg"

        // Update metadata properties
        do {
          let updatedMetadata = try await forestRef.updateMetadata(newMetadata)
        } catch {
          // ...
        }
        // [END firstorage_change_metadata]
    }

    static func deleteMetadata(_ storageRef: StorageReference) async {
        let forestRef = storageRef.child("images/forest.jpg")

        // [START firstorage_delete_metadata]
        let newMetadata = StorageMetadata()
        newMetadata.contentType = nil

        do {
          // Delete the metadata property
          let updatedMetadata = try await forestRef.updateMetadata(newMetadata)
        } catch {
          // ...
        }
        // [END firstorage_delete_metadata]
    }

    static func customMetadata() -> [String: [String: String]] {
        // [START firstorage_custom_metadata]
        let metadata = [
          "customMetadata": [
            "location": "Yosemite, CA, USA",
            "activity": "Hiking"
          ]
        ]
        // [END firstorage_custom_metadata]
        return metadata
    }
}
