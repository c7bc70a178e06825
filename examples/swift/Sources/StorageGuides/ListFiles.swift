// "List files with Cloud Storage on Apple platforms": the guide's snippets, verbatim between the
// START/END markers.
import FirebaseStorage
import Foundation

enum ListFilesGuide {
    static func run() async {
        let storage = Storage.storage()

        // [START storage_list_all]
        let storageReference = storage.reference().child("files/uid")
        do {
          let result = try await storageReference.listAll()
          for prefix in result.prefixes {
            // The prefixes under storageReference.
            // You may call listAll(completion:) recursively on them.
          }
          for item in result.items {
            // The items under storageReference.
          }
        } catch {
          // ...
        }
        // [END storage_list_all]
        let all = try? await storageReference.listAll()
        check(all?.items.count == Fixtures.listedFiles && all?.prefixes.map(\.name) == ["nested"], "list: listAll")

        do {
            try await listAllPaginated()
            let first = try await storageReference.list(maxResults: 100)
            let second = try await storageReference.list(maxResults: 100, pageToken: first.pageToken ?? "")
            check(first.items.count + second.items.count == Fixtures.listedFiles && second.pageToken == nil,
                  "list: paginated by 100")
        } catch {
            check(false, "list: paginated (\(error))")
        }
    }

    // [START storage_list_paginated]
    static func listAllPaginated(pageToken: String? = nil) async throws {
      let storage = Storage.storage()
      let storageReference = storage.reference().child("files/uid")

      let listResult: StorageListResult
      if let pageToken = pageToken {
        listResult = try await storageReference.list(maxResults: 100, pageToken: pageToken)
      } else {
        listResult = try await storageReference.list(maxResults: 100)
      }
      let prefixes = listResult.prefixes
      let items = listResult.items
      // Handle list result
      // ...

      // Process next page
      if let token = listResult.pageToken {
        try await listAllPaginated(pageToken: token)
      }
    }
    // [END storage_list_paginated]
}
