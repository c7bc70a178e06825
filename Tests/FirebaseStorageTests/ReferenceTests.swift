// References and FirebaseCore, without network: the Apple SDK's path rules and app registry.
import EmulatorProcess
import FirebaseCore
import FirebaseStorage
import Foundation
import Testing

@Suite("References and apps")
struct ReferenceTests {
    @Test("child, parent, root, name, fullPath and bucket follow the Apple SDK")
    func navigation() {
        let storage = makeStorage(.production)
        let root = storage.reference()
        let object = root.child("/path///to////object////////")
        #expect(object.fullPath == "path/to/object")
        #expect(object.name == "object")
        #expect(object.bucket == root.bucket)
        #expect(object.description == "gs://\(root.bucket)/path/to/object")
        #expect(object.parent()?.fullPath == "path/to")
        #expect(object.root() == root)
        #expect(root.name == "" && root.fullPath == "")
        #expect(root.parent() == nil)
        #expect(storage.reference(withPath: "images/space.jpg") == root.child("images").child("space.jpg"))
        #expect(storage.reference(forURL: "gs://\(root.bucket)/images/stars.jpg").fullPath == "images/stars.jpg")
        let fromHTTPS = storage.reference(forURL: "https://firebasestorage.googleapis.com/v0/b/\(root.bucket)/o/images%20stars.jpg")
        #expect(fromHTTPS.fullPath == "images stars.jpg")
    }

    @Test("reference(for:) throws StorageError for a bad URL or another bucket")
    func throwingReference() {
        let storage = makeStorage(.production)
        do {
            _ = try storage.reference(for: URL(string: "ftp://host/x")!)
            Issue.record("an ftp URL was accepted")
        } catch StorageError.pathError {
        } catch {
            Issue.record("an ftp URL gave \(error)")
        }
        do {
            _ = try storage.reference(for: URL(string: "gs://some-other-bucket/x")!)
            Issue.record("a URL of another bucket was accepted")
        } catch {
            // Thrown errors are `StorageError`s; `as NSError` gives the domain and code.
            #expect((error as NSError).domain == StorageErrorDomain)
            #expect((error as NSError).code == StorageErrorCode.bucketMismatch.rawValue)
        }
    }

    @Test("Storage.storage(app:) returns one instance per app and bucket; settings have the Apple defaults")
    func instances() {
        let storage = makeStorage(.production)
        #expect(Storage.storage(app: storage.app) === storage)
        #expect(Storage.storage(app: storage.app, url: "gs://\(storage.reference().bucket)") === storage)
        #expect(Storage.storage(app: storage.app, url: "gs://another-bucket") !== storage)
        #expect(storage.maxUploadRetryTime == 600 && storage.maxDownloadRetryTime == 600)
        #expect(storage.maxOperationRetryTime == 120)
        #expect(storage.uploadChunkSizeBytes == .max)
        storage.maxOperationRetryTime = 30
        #expect(storage.maxOperationRetryTime == 30)
    }

    @Test("FirebaseApp keeps named apps; FirebaseOptions reads GoogleService-Info.plist")
    func apps() throws {
        let options = FirebaseOptions(googleAppID: "1:42:ios:abc", gcmSenderID: "42")
        let name = "named-\(UUID().uuidString)"
        FirebaseApp.configure(name: name, options: options)
        #expect(FirebaseApp.app(name: name)?.options.googleAppID == "1:42:ios:abc")
        #expect(FirebaseApp.allApps?[name]?.name == name)

        let plist: [String: Any] = ["GOOGLE_APP_ID": "1:7:ios:def", "GCM_SENDER_ID": "7", "API_KEY": "key",
                                    "PROJECT_ID": "demo-project", "STORAGE_BUCKET": "demo-project.appspot.com"]
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("GoogleService-Info-\(UUID()).plist").path
        let data = try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0)
        #expect(FileManager.default.createFile(atPath: path, contents: data))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let read = try #require(FirebaseOptions(contentsOfFile: path))
        #expect(read.googleAppID == "1:7:ios:def" && read.gcmSenderID == "7")
        #expect(read.apiKey == "key" && read.projectID == "demo-project")
        #expect(read.storageBucket == "demo-project.appspot.com")
        #expect(FirebaseOptions(contentsOfFile: path + ".missing") == nil)
    }

    @Test("StorageError converts to the NSError completion handlers receive")
    func errors() {
        let error = StorageError.objectNotFound(object: "a/b", serverError: ["ResponseErrorCode": 404])
        let nsError = error as NSError
        #expect(nsError.domain == "FIRStorageErrorDomain")
        #expect(StorageErrorCode(rawValue: nsError.code) == .objectNotFound)
        #expect(nsError.localizedDescription == "Object a/b does not exist.")
        #expect(nsError.userInfo["ResponseErrorCode"] as? Int == 404)
        #expect(StorageErrorCode.cancelled.rawValue == -13040 && StorageErrorCode.pathError.rawValue == -13053)
    }

    @Test("StorageMetadata: writable optionals, dictionaryRepresentation, init(dictionary:)")
    func metadata() {
        let metadata = StorageMetadata()
        #expect(metadata.contentType == nil && metadata.customMetadata == nil && metadata.size == 0)
        metadata.contentType = "image/jpeg"
        metadata.customMetadata = ["location": "Yosemite, CA, USA"]
        let dictionary = metadata.dictionaryRepresentation()
        #expect(dictionary["contentType"] as? String == "image/jpeg")
        #expect(dictionary["metadata"] as? [String: String] == ["location": "Yosemite, CA, USA"])
        let parsed = StorageMetadata(dictionary: ["name": "path/to/object", "size": 1337, "generation": "12345",
                                                  "metadata": ["k": "v"] as [String: String]])
        #expect(parsed.path == "path/to/object" && parsed.name == "object")
        #expect(parsed.size == 1337 && parsed.generation == 12345)
        #expect(parsed.customMetadata == ["k": "v"])
        #expect(parsed.dictionaryRepresentation()["generation"] as? String == "12345")
    }
}

@Suite("A storage without a bucket, as the Apple SDK's Storage.storage(url: \"\")", .timeLimit(.minutes(1)))
struct NoBucketTests {
    private func app(bucket: String?) -> FirebaseApp {
        let id = UUID().uuidString.lowercased()
        let options = FirebaseOptions(googleAppID: "1:1234:ios:\(id)", gcmSenderID: "1234")
        options.storageBucket = bucket
        options.projectID = "demo-tests"
        FirebaseApp.configure(name: "app-\(id)", options: options)
        return FirebaseApp.app(name: "app-\(id)")!
    }

    private func expectBucketNotFound(_ error: Error?) {
        let nsError = error as NSError?
        #expect(nsError.flatMap { StorageErrorCode(rawValue: $0.code) } == .bucketNotFound, "\(String(describing: error))")
    }

    @Test("storage(url: \"\") and an empty storageBucket give references whose operations fail with bucketNotFound",
          arguments: Flavor.allCases)
    func emptyBucket(flavor: Flavor) async throws {
        let configured = app(bucket: "bucket-\(UUID().uuidString.prefix(8).lowercased())")
        for storage in [Storage.storage(app: configured, url: ""), Storage.storage(app: app(bucket: ""))] {
            storage.useEmulator(withHost: "127.0.0.1", port: Emulators.port(flavor))
            storage.callbackQueue = TestQueue.queue
            let ref = storage.reference(withPath: "ios/public/testBytesUpload")
            #expect(ref.bucket == "" && ref.fullPath == "ios/public/testBytesUpload")
            // As the Apple SDK's testNoDeadlocks: an upload from another upload's completion.
            let data = Data("Hello Swift World".utf8)
            let error: Error? = await called { done in
                ref.putData(data) { _, _ in ref.putData(data) { _, error in done(error) } }
            }
            expectBucketNotFound(error)
            expectBucketNotFound(await called { done in ref.getMetadata { _, error in done(error) } })
            let local = FileManager.default.temporaryDirectory.appendingPathComponent("no-bucket-\(UUID()).txt")
            expectBucketNotFound(await called { done in ref.write(toFile: local) { _, error in done(error) } })
            do {
                _ = try await ref.listAll()
                Issue.record("listAll succeeded without a bucket")
            } catch {
                expectBucketNotFound(error as NSError)
            }
        }
    }
}
