// The Apple API against the bundled emulator in both flavors: uploads, downloads, metadata, listing,
// deletion, their completion/Result/async forms, and the errors they hand out.
import EmulatorProcess
import FirebaseStorage
import Foundation
import Testing

@Suite("FirebaseStorage operations against the emulator", .timeLimit(.minutes(1)))
struct OperationTests {
    @Test("putData calls back on the callback queue with metadata; getData and data(maxSize:) read it back",
          arguments: Flavor.allCases)
    func putAndGetData(flavor: Flavor) async throws {
        let ref = makeStorage(flavor).reference().child("images/rivers.jpg")
        let bytes = randomData(1000)
        let (metadata, error, onQueue) = await called { done in
            ref.putData(bytes, metadata: nil) { metadata, error in done((metadata, error, TestQueue.isCurrent)) }
        }
        #expect(error == nil)
        #expect(onQueue)
        let uploaded = try #require(metadata)
        #expect(uploaded.size == 1000 && uploaded.path == "images/rivers.jpg" && uploaded.name == "rivers.jpg")
        #expect(uploaded.contentType == "application/octet-stream")
        #expect(uploaded.bucket == ref.bucket && uploaded.generation > 0 && uploaded.md5Hash != nil)

        let (data, readError) = await called { done in
            ref.getData(maxSize: 1 * 1024 * 1024) { data, error in done((data, error)) }
        }
        #expect(readError == nil)
        #expect(data == bytes)
        #expect(try await ref.data(maxSize: 1000) == bytes)
    }

    @Test("data(range:), an fbstorage extra, reads a slice; past the end it fails", arguments: Flavor.allCases)
    func dataRange(flavor: Flavor) async throws {
        let ref = makeStorage(flavor).reference().child("ranged.bin")
        let bytes = randomData(5000)
        _ = try await ref.putDataAsync(bytes)
        #expect(try await ref.data(range: 100..<1100) == bytes[100..<1100])
        #expect(try await ref.data(range: 4999..<5000) == bytes[4999..<5000])
        await #expect(throws: StorageError.self) { try await ref.data(range: 4999..<5001) }
    }

    @Test("getData fails with downloadSizeExceeded over maxSize", arguments: Flavor.allCases)
    func getDataTooLarge(flavor: Flavor) async throws {
        let ref = makeStorage(flavor).reference().child("big.bin")
        _ = try await ref.putDataAsync(randomData(5000))
        let error = await called { done in ref.getData(maxSize: 100) { _, error in done(error) } }
        let nsError = try #require(error as? NSError)
        #expect(nsError.domain == StorageErrorDomain)
        #expect(StorageErrorCode(rawValue: nsError.code) == .downloadSizeExceeded)
        #expect(nsError.userInfo["maxAllowedSize"] as? Int64 == 100)
        #expect(nsError.userInfo["totalSize"] as? Int64 == 5000)
        await #expect(throws: StorageError.self) { try await ref.data(maxSize: 4999) }
    }

    @Test("putFile infers the content type; write(toFile:) downloads; a missing file fails the task",
          arguments: Flavor.allCases)
    func files(flavor: Flavor) async throws {
        let storage = makeStorage(flavor)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fs-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let local = directory.appendingPathComponent("photo.png")
        let bytes = randomData(3000)
        try bytes.write(to: local)

        let ref = storage.reference(withPath: "photos/photo.png")
        let metadata = try await ref.putFileAsync(from: local)
        #expect(metadata.contentType == "image/png" && metadata.size == 3000)

        let destination = directory.appendingPathComponent("copy.png")
        let (url, error) = await called { done in ref.write(toFile: destination) { url, error in done((url, error)) } }
        #expect(error == nil && url == destination)
        #expect(try Data(contentsOf: destination) == bytes)
        #expect(try await ref.writeAsync(toFile: destination) == destination)

        let missing = directory.appendingPathComponent("missing.jpg")
        let task = ref.putFile(from: missing)
        let failed = await called { done in task.observe(.failure) { done($0) } }
        #expect(failed.status == .failure)
        let nsError = try #require(failed.error as? NSError)
        #expect(nsError.domain == StorageErrorDomain)
        #expect(task.snapshot.status == .failure)
        let putError = await called { done in ref.putFile(from: missing, metadata: nil) { _, error in done(error) } }
        #expect((putError as? NSError)?.code == nsError.code)
    }

    @Test("getMetadata and updateMetadata: assigned fields are sent, nil deletes, custom keys are replaced",
          arguments: Flavor.allCases)
    func metadata(flavor: Flavor) async throws {
        let ref = makeStorage(flavor).reference().child("images/forest.jpg")
        let initial = StorageMetadata()
        initial.contentType = "image/jpeg"
        initial.contentLanguage = "en"
        initial.customMetadata = ["location": "Yosemite, CA, USA", "activity": "Hiking"]
        _ = try await ref.putDataAsync(randomData(10), metadata: initial)

        let fetched = try await ref.getMetadata()
        #expect(fetched.contentType == "image/jpeg" && fetched.contentLanguage == "en")
        #expect(fetched.customMetadata == ["location": "Yosemite, CA, USA", "activity": "Hiking"])
        #expect(fetched.timeCreated != nil && fetched.updated != nil && fetched.metageneration >= 1)

        let changes = StorageMetadata()
        changes.cacheControl = "public,max-age=300"
        changes.contentLanguage = nil
        let (updated, error) = await called { done in ref.updateMetadata(changes) { done(($0, $1)) } }
        #expect(error == nil)
        #expect(updated?.cacheControl == "public,max-age=300")
        #expect(updated?.contentLanguage == nil)
        #expect(updated?.contentType == "image/jpeg")
        #expect(updated?.customMetadata?["activity"] == "Hiking")

        fetched.customMetadata = ["location": "Half Dome"]
        let replaced = try await ref.updateMetadata(fetched)
        #expect(replaced.customMetadata == ["location": "Half Dome"])
    }

    @Test("list pages with maxResults and pageToken; listAll gathers every page", arguments: Flavor.allCases)
    func listing(flavor: Flavor) async throws {
        let root = makeStorage(flavor).reference().child("files/uid")
        for name in ["a", "b", "c", "sub/d"] { _ = try await root.child(name).putDataAsync(Data(name.utf8)) }

        let first = try await root.list(maxResults: 2)
        let token = try #require(first.pageToken)
        let second = try await root.list(maxResults: 2, pageToken: token)
        let paged = (first.items + second.items).map(\.name)
        #expect(Set(paged) == ["a", "b", "c"])

        let all = await called { done in root.listAll { done(($0, $1)) } }
        #expect(all.1 == nil)
        #expect(all.0?.items.map(\.fullPath).sorted() == ["files/uid/a", "files/uid/b", "files/uid/c"])
        #expect(all.0?.prefixes.map(\.fullPath) == ["files/uid/sub"])
        #expect(all.0?.pageToken == nil)

        let invalid = await called { done in root.list(maxResults: 0) { done($1) } }
        #expect((invalid as? NSError)?.code == StorageErrorCode.invalidArgument.rawValue)
        let viaResult = await called { done in root.list(maxResults: 1001) { (result: Result<StorageListResult, Error>) in done(result) } }
        guard case .failure(StorageError.invalidArgument) = viaResult else {
            Issue.record("list(maxResults: 1001) gave \(viaResult)")
            return
        }
    }

    @Test("delete removes the object; later operations fail with objectNotFound in every form",
          arguments: Flavor.allCases)
    func deletion(flavor: Flavor) async throws {
        let ref = makeStorage(flavor).reference().child("desert.jpg")
        _ = try await ref.putDataAsync(Data("sand".utf8))
        let url = try await ref.downloadURL()
        #expect(url.absoluteString.contains("alt=media&token="))
        let deleteError = await called { done in ref.delete { done($0) } }
        #expect(deleteError == nil)

        let error = await called { done in ref.getMetadata { done($1) } }
        let nsError = try #require(error as? NSError)
        #expect(nsError.domain == "FIRStorageErrorDomain")
        #expect(StorageErrorCode(rawValue: nsError.code) == .objectNotFound)
        #expect(nsError.localizedDescription == "Object desert.jpg does not exist.")
        do {
            try await ref.delete()
            Issue.record("deleting a deleted object succeeded")
        } catch StorageError.objectNotFound(let object, _) {
            #expect(object == "desert.jpg")
        }
    }
}
