// The service layer against the bundled emulator, in both flavors: uploads (multipart and
// resumable), the task state machine (events, pause, resume, cancel), operations and downloads.
import FoundationEssentials
import Glibc
import Testing

@testable import FBStorage

@Suite("Storage tasks and operations against the emulator")
struct StorageTaskTests {

    private func upload(_ ref: StorageReference, _ bytes: [UInt8], metadata: StorageMetadata? = nil) throws -> StorageTaskSnapshot {
        let task = try ref.putData(bytes, metadata: metadata)
        let final = try #require(try task.wait(timeout: 60))
        return final
    }

    @Test("small uploads go in one request and read back byte-identical", arguments: Flavor.allCases)
    func smallUploads(flavor: Flavor) throws {
        let storage = try Emulator.shared(flavor).storage()
        defer { storage.close() }
        for size in [0, 1, 100 * 1024] {
            let bytes = patternBytes(size, seed: size)
            let ref = try storage.reference("small/\(size).bin")
            let final = try upload(ref, bytes)
            #expect(final.status == .success, "\(String(describing: final.error))")
            #expect(final.metadata?.size == Int64(size))
            #expect(final.metadata?.contentType.string == "application/octet-stream")
            #expect(try ref.getData(maxSize: Int64(size)).bytes == bytes)
        }
    }

    @Test("a resumable upload streams chunks, reports ordered events and verifies CRC32C", arguments: Flavor.allCases)
    func resumableUpload(flavor: Flavor) throws {
        let storage = try Emulator.shared(flavor).storage()
        defer { storage.close() }
        try storage.updateSettings { $0.uploadChunkSize = 256 << 10 }
        let bytes = patternBytes((1 << 20) + 12_345, seed: 7)
        let ref = try storage.reference("big/one.bin")
        let task = try ref.putData(bytes)
        let log = try EventLog(task)
        let final = try #require(try task.wait(timeout: 60))
        #expect(final.status == .success, "\(String(describing: final.error))")
        #expect(log.statuses.first == .resume)
        #expect(log.statuses.last == .success)
        #expect(log.statuses.filter { $0 == .success }.count == 1)
        let progress = log.events.filter { $0.status == .progress }.map(\.bytesTransferred)
        #expect(progress == progress.sorted())
        #expect(progress.last == Int64(bytes.count))
        #expect(final.metadata?.size == Int64(bytes.count))
        #expect(try ref.getData(maxSize: 1 << 30).bytes == bytes)
    }

    @Test("put_file infers the content type and sends custom metadata", arguments: Flavor.allCases)
    func putFile(flavor: Flavor) throws {
        let storage = try Emulator.shared(flavor).storage()
        defer { storage.close() }
        let file = LocalFile(bytes: patternBytes(300 * 1024, seed: 3), suffix: ".txt")
        defer { file.remove() }
        var metadata = StorageMetadata()
        metadata.setCustom("owner", "ada")
        let final = try #require(try storage.reference("docs/a.txt").putFile(file.path, metadata: metadata).wait(timeout: 60))
        #expect(final.status == .success, "\(String(describing: final.error))")
        #expect(final.metadata?.contentType.string == "text/plain")
        #expect(final.metadata?.customMetadata["owner"] == "ada")
    }

    @Test("pause stops the upload and resume continues it to a byte-identical object", arguments: Flavor.allCases)
    func pauseAndResume(flavor: Flavor) throws {
        let storage = try Emulator.shared(flavor).storage()
        defer { storage.close() }
        try storage.updateSettings { $0.uploadChunkSize = 256 << 10 }
        let bytes = patternBytes(3 << 20, seed: 11)
        let ref = try storage.reference("paused.bin")
        let task = try ref.putData(bytes)
        let paused = Completion<Void>()
        _ = try task.observe(.progress) { snapshot in
            if snapshot.bytesTransferred > 0 { task.pause() }
        }
        _ = try task.observe(.pause) { _ in paused.complete(()) }
        paused.wait()
        task.removeAllObservers(for: .progress)
        #expect(task.snapshot.status == .pause)
        task.resume()
        let final = try #require(try task.wait(timeout: 60))
        #expect(final.status == .success, "\(String(describing: final.error))")
        #expect(try ref.getData(maxSize: 1 << 30).bytes == bytes)
    }

    @Test("cancel ends the task with FAILURE / cancelled", arguments: Flavor.allCases)
    func cancel(flavor: Flavor) throws {
        let storage = try Emulator.shared(flavor).storage()
        defer { storage.close() }
        try storage.updateSettings { $0.uploadChunkSize = 256 << 10 }
        let task = try storage.reference("cancelled.bin").putData(patternBytes(4 << 20))
        task.cancel()
        let final = try #require(try task.wait(timeout: 30))
        #expect(final.status == .failure)
        #expect(final.error?.code == .cancelled)
    }

    @Test("an upload to the root fails with a path error")
    func rootUpload() throws {
        let storage = try Emulator.shared(.production).storage()
        defer { storage.close() }
        #expect(throws: StorageError.self) { try storage.reference().putData([1, 2, 3]) }
        do { _ = try storage.reference().putData([1]) } catch { #expect(error.code == .pathError) }
    }

    @Test("update sends only what was set: set, null deletes, untouched stays, custom merges", arguments: Flavor.allCases)
    func updateMetadata(flavor: Flavor) throws {
        let storage = try Emulator.shared(flavor).storage()
        defer { storage.close() }
        let ref = try storage.reference("meta.txt")
        var initial = StorageMetadata()
        initial.cacheControl = .value("max-age=60")
        initial.contentDisposition = .value("inline")
        initial.setCustom("a", "1")
        initial.setCustom("b", "2")
        #expect(try upload(ref, Array("hello".utf8), metadata: initial).status == .success)

        var changes = StorageMetadata()
        changes.contentLanguage = .value("en")
        changes.cacheControl = .null
        changes.setCustom("b", nil)
        changes.setCustom("c", "3")
        let updated = try ref.updateMetadata(changes)
        #expect(updated.contentLanguage.string == "en")
        #expect(updated.cacheControl.string == nil)
        #expect(updated.contentDisposition.string == "inline")
        #expect(updated.customMetadata == ["a": "1", "c": "3"])
        let fetched = try ref.getMetadata()
        #expect(fetched.customMetadata == ["a": "1", "c": "3"])
        #expect(fetched.metageneration == updated.metageneration)
    }

    @Test("list pages through items and prefixes; listAll keeps each prefix once", arguments: Flavor.allCases)
    func list(flavor: Flavor) throws {
        let storage = try Emulator.shared(flavor).storage()
        defer { storage.close() }
        let names = (0..<5).map { "dir/item\($0)" } + ["dir/p1/x", "dir/p1/y", "dir/p2/z", "other/q"]
        for name in names { #expect(try upload(try storage.reference(name), [1]).status == .success) }
        let dir = try storage.reference("dir")
        var items: [String] = []
        var prefixes: [String] = []
        var token: String?
        repeat {
            let page = try dir.list(maxResults: 2, pageToken: token)
            items += page.items.map(\.fullPath)
            prefixes += page.prefixes.map(\.fullPath)
            token = page.pageToken
        } while token != nil
        #expect(items.sorted() == (0..<5).map { "dir/item\($0)" })
        #expect(Set(prefixes) == ["dir/p1", "dir/p2"])
        let all = try dir.listAll()
        #expect(all.items.map(\.fullPath).sorted() == items.sorted())
        #expect(all.prefixes.map(\.fullPath).sorted() == ["dir/p1", "dir/p2"])
        #expect(all.pageToken == nil)
        #expect(throws: StorageError.self) { try dir.list(maxResults: 1001, pageToken: nil) }
    }

    @Test("delete, then the object is not found", arguments: Flavor.allCases)
    func deleteObject(flavor: Flavor) throws {
        let storage = try Emulator.shared(flavor).storage()
        defer { storage.close() }
        let ref = try storage.reference("gone.bin")
        #expect(try upload(ref, [1, 2]).status == .success)
        try ref.delete()
        do {
            _ = try ref.getMetadata()
            Issue.record("getMetadata after delete succeeded")
        } catch {
            #expect(error.code == .objectNotFound)
            #expect(error.httpStatus == 404)
        }
    }

    @Test("the download URL serves the bytes; get_data refuses objects over max_size", arguments: Flavor.allCases)
    func downloads(flavor: Flavor) throws {
        let emulator = Emulator.shared(flavor)
        let storage = try emulator.storage()
        defer { storage.close() }
        let bytes = patternBytes(70_000, seed: 5)
        let ref = try storage.reference("dl/file.bin")
        #expect(try upload(ref, bytes).status == .success)
        let url = try ref.downloadURL()
        #expect(url.hasPrefix(emulator.base + "/v0/b/\(storage.bucket)/o/dl%2Ffile.bin?alt=media&token="))
        #expect(try emulator.raw("GET", String(url.dropFirst(emulator.base.count))).body == bytes)
        do {
            _ = try ref.getData(maxSize: 1000)
            Issue.record("get_data over max_size succeeded")
        } catch {
            #expect(error.code == .downloadSizeExceeded)
        }
    }

    @Test("write(toFile:) writes the object; a failed download leaves no file", arguments: Flavor.allCases)
    func writeToFile(flavor: Flavor) throws {
        let storage = try Emulator.shared(flavor).storage()
        defer { storage.close() }
        let bytes = patternBytes(2 << 20, seed: 9)
        let ref = try storage.reference("dl/big.bin")
        #expect(try upload(ref, bytes).status == .success)
        let destination = "/tmp/fbs-dl-\(UInt32.random(in: 0...UInt32.max)).bin"
        defer { unlink(destination) }
        let final = try #require(try ref.write(toFile: destination).wait(timeout: 60))
        #expect(final.status == .success, "\(String(describing: final.error))")
        #expect(LocalFile.read(destination) == bytes)

        let missing = "/tmp/fbs-dl-missing-\(UInt32.random(in: 0...UInt32.max)).bin"
        let failed = try #require(try storage.reference("dl/nothing").write(toFile: missing).wait(timeout: 60))
        #expect(failed.error?.code == .objectNotFound)
        #expect(access(missing, F_OK) != 0)
    }
}
