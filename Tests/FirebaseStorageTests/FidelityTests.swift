// What code written for the Apple SDK relies on beyond the signatures: tasks managed through
// StorageTaskManagement, the HTTP error under NSUnderlyingErrorKey, and the SDK's exact texts.
import EmulatorProcess
import FirebaseStorage
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

@Suite("FirebaseStorage fidelity to the Apple SDK", .timeLimit(.minutes(1)))
struct FidelityTests {
    @Test("uploads and downloads are StorageTaskManagement: enqueue, pause, resume and cancel through it",
          arguments: Flavor.allCases)
    func taskManagement(flavor: Flavor) async throws {
        let storage = makeStorage(flavor)
        storage.uploadChunkSizeBytes = 256 * 1024
        let ref = storage.reference().child("managed.bin")
        let bytes = randomData(1024 * 1024)
        let upload = ref.putData(bytes)
        let managed: any StorageTaskManagement = upload
        managed.enqueue()   // already begun: nothing more happens
        let paused = await called { done in
            upload.observe(.progress) { _ in managed.pause() }
            upload.observe(.pause) { done($0) }
        }
        #expect(paused.status == .pause)
        upload.removeAllObservers(for: .progress)
        let successes = Recorder<StorageTaskStatus>()
        let done = await called { done in
            upload.observe(.success) { successes.add($0.status); done($0) }
            managed.resume()
        }
        #expect(done.metadata?.size == Int64(bytes.count))
        #expect(successes.all == [.success])   // enqueue did not start a second upload

        // Held back by the emulator, so that the cancel meets it running.
        try await injectFault(flavor, action: ["delay_ms": 3000], method: "GET", pathPrefix: "/v0/b/\(ref.bucket)/o/managed.bin")
        let download: any StorageTaskManagement = ref.write(toFile: FileManager.default.temporaryDirectory
            .appendingPathComponent("managed-\(UUID()).bin"))
        let failed = await called { done in
            (download as! StorageDownloadTask).observe(.failure) { done($0.error) }
            download.cancel()
        }
        #expect((failed as? NSError)?.code == StorageErrorCode.cancelled.rawValue)
    }

    @Test("a type adopting StorageTaskManagement needs enqueue() only: pause, cancel and resume are optional as in the Apple SDK")
    func optionalTaskOperations() {
        final class Enqueued: StorageTaskManagement {
            var calls = 0
            func enqueue() { calls += 1 }
        }
        let task = Enqueued()
        let managed: any StorageTaskManagement = task
        managed.enqueue()
        managed.pause()
        managed.resume()
        managed.cancel()
        #expect(task.calls == 1)
    }

    @Test("a server's error carries the HTTP error under NSUnderlyingErrorKey, as GTMSessionFetcher reports it",
          arguments: Flavor.allCases)
    func underlyingHTTPError(flavor: Flavor) async throws {
        let ref = makeStorage(flavor).reference().child("absent.txt")
        let error = try #require(await called { done in ref.getMetadata { done($1) } } as? NSError)
        #expect(error.domain == StorageErrorDomain && error.code == StorageErrorCode.objectNotFound.rawValue)
        let http = try #require(error.userInfo[NSUnderlyingErrorKey] as? NSError)
        #expect(http.domain == "com.google.HTTPStatus" && http.code == 404)
        let body = try #require(http.userInfo["data"] as? Data)
        #expect(String(decoding: body, as: UTF8.self) == error.userInfo["ResponseBody"] as? String)
        #expect(error.userInfo["ResponseErrorDomain"] as? String == "com.google.HTTPStatus")
        #expect(error.userInfo["ResponseErrorCode"] as? Int == 404)
        #expect(error.localizedDescription == "Object absent.txt does not exist.")
    }

    @Test("statuses the SDK does not map are described as it describes them", arguments: Flavor.allCases)
    func unmappedStatuses(flavor: Flavor) async throws {
        let storage = makeStorage(flavor)
        let ref = storage.reference().child("faulted.txt")
        _ = try await ref.putDataAsync(Data("f".utf8))
        for (status, description) in [(400, "Unknown 400 error from backend"), (409, "Unexpected 409 code from backend")] {
            try await injectFault(flavor, action: ["status": status], method: "GET", pathPrefix: "/v0/b/\(ref.bucket)/o/faulted.txt")
            let error = try #require(await called { done in ref.getMetadata { done($1) } } as? NSError)
            #expect(error.code == StorageErrorCode.unknown.rawValue)
            #expect(error.localizedDescription == description)
            #expect((error.userInfo[NSUnderlyingErrorKey] as? NSError)?.code == status)
        }
    }

    @Test("argument and file errors have the SDK's exact texts", arguments: Flavor.allCases)
    func exactTexts(flavor: Flavor) async throws {
        let ref = makeStorage(flavor).reference().child("texts")
        do {
            _ = try await ref.list(maxResults: 0)
            Issue.record("list(maxResults: 0) succeeded")
        } catch StorageError.invalidArgument(let message) {
            #expect(message == "Argument 'maxResults' must be between 1 and 1000 inclusive.")
        }
        let missing = FileManager.default.temporaryDirectory.appendingPathComponent("missing-\(UUID()).bin")
        do {
            _ = try await ref.putFileAsync(from: missing)
            Issue.record("putFile of a missing file succeeded")
        } catch StorageError.unknown(let message, _) {
            #expect(message == "File at URL: \(missing.absoluteString) is not reachable. "
                    + "Ensure file URL is not a directory, symbolic link, or invalid url.")
        }
        #expect((StorageError.nonMatchingChecksum as NSError).localizedDescription
                == "Uploaded/downloaded object TODO has checksum: TODO which does not match server checksum: TODO. "
                + "Please retry the upload/download.")
    }
}

/// Makes the flavor's emulator answer the next matching request with `action` (its fault API).
private func injectFault(_ flavor: Flavor, action: [String: Int], method: String, pathPrefix: String) async throws {
    var request = URLRequest(url: URL(string: "http://127.0.0.1:\(Emulators.port(flavor))/_emulator/faults")!)
    request.httpMethod = "POST"
    request.httpBody = try JSONSerialization.data(withJSONObject: [
        "match": ["method": method, "path_prefix": pathPrefix], "times": 1, "action": action])
    let answered = await called { done in
        URLSession.shared.dataTask(with: request) { _, response, _ in done((response as? HTTPURLResponse)?.statusCode) }.resume()
    }
    #expect(answered == 201)
}
