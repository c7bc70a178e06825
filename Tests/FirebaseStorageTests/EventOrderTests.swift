// The Apple SDK's event order through the Apple API, with stress loops for the races: every
// PROGRESS before the completion, async forms returning after their progress, cancel() right
// after a task starts (on the callback queue, as an app's main-queue code) never lost, and a
// pause() from a PROGRESS observer taking effect before the end of a download on loopback.
import EmulatorProcess
import FirebaseStorage
import Foundation
import Testing

@Suite("FirebaseStorage event order", .timeLimit(.minutes(3)))
struct EventOrderTests {
    /// Runs `body` for 0..<count, at most `width` at a time.
    private func concurrently(_ count: Int, width: Int = 16, _ body: @escaping @Sendable (Int) async throws -> Void) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<count {
                if index >= width { try await group.next() }
                group.addTask { try await body(index) }
            }
            try await group.waitForAll()
        }
    }

    /// A storage calling back on a serial queue of its own: the stress loops' thousands of
    /// callbacks do not hold up the other tests' `TestQueue`.
    private func isolatedStorage(_ flavor: Flavor) -> (Storage, DispatchQueue) {
        let storage = makeStorage(flavor)
        let queue = DispatchQueue(label: "event-order-tests")
        storage.callbackQueue = queue
        return (storage, queue)
    }

    private func smallFile() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("event-order-\(UUID()).txt")
        try Data("Hello Swift World".utf8).write(to: url)   // 17 bytes, as the Apple SDK's tests
        return url
    }

    @Test("1,000 small putFile tasks: no PROGRESS after the completion handler")
    func noProgressAfterCompletion() async throws {
        let (storage, queue) = isolatedStorage(.production)
        let file = try smallFile()
        defer { try? FileManager.default.removeItem(at: file) }
        let late = Recorder<String>()
        let progressSeen = Recorder<Int>()
        try await concurrently(1000) { index in
            let ref = storage.reference().child("small/\(index).txt")
            let ended = Recorder<Bool>()   // the completion ran (on the callback queue)
            let error: Error? = await called { done in
                let task = ref.putFile(from: file, metadata: nil) { _, error in
                    ended.add(true)
                    done(error)
                }
                task.observe(.progress) { _ in
                    progressSeen.add(index)
                    if !ended.all.isEmpty { late.add("progress after completion of task \(index)") }
                }
            }
            #expect(error == nil)
        }
        queue.sync {}   // any event dispatched before this point has run
        #expect(late.all.isEmpty, "\(late.all.prefix(5))")
        #expect(!progressSeen.all.isEmpty)
    }

    @Test("putFileAsync(onProgress:) and writeAsync return after their progress, every time")
    func asyncFormsReturnAfterProgress() async throws {
        let (storage, queue) = isolatedStorage(.production)
        let file = try smallFile()
        defer { try? FileManager.default.removeItem(at: file) }
        try await concurrently(300) { index in
            let ref = storage.reference().child("async/\(index).txt")
            let uploaded = Recorder<Int64>()
            let metadata = try await ref.putFileAsync(from: file) { uploaded.add($0?.completedUnitCount ?? -1) }
            #expect(metadata.size == 17)
            #expect(uploaded.all.last == 17, "upload \(index) returned after progress \(uploaded.all)")

            let local = FileManager.default.temporaryDirectory.appendingPathComponent("event-order-\(UUID()).txt")
            defer { try? FileManager.default.removeItem(at: local) }
            let downloaded = Recorder<Int64>()
            _ = try await ref.writeAsync(toFile: local) { downloaded.add($0?.completedUnitCount ?? -1) }
            #expect(downloaded.all.last == 17, "download \(index) returned after progress \(downloaded.all)")
        }
    }

    @Test("cancel() right after write(toFile:) is never lost (1,000 small downloads)")
    func cancelRightAfterStart() async throws {
        let (storage, queue) = isolatedStorage(.production)
        let ref = storage.reference().child("cancel/small.txt")
        _ = try await ref.putDataAsync(Data("Hello Swift World".utf8))
        let outcomes = Recorder<String>()
        try await concurrently(1000) { index in
            let local = FileManager.default.temporaryDirectory.appendingPathComponent("event-order-\(UUID()).txt")
            // On the callback queue, as an app's main-queue code: the task cannot end in between.
            let error: Error? = await called { done in
                queue.sync {
                    let task = ref.write(toFile: local) { _, error in done(error) }
                    task.cancel()
                }
            }
            let code = (error as NSError?).flatMap { StorageErrorCode(rawValue: $0.code) }
            if code != .cancelled { outcomes.add("download \(index): \(String(describing: error))") }
            #expect(!FileManager.default.fileExists(atPath: local.path))
        }
        #expect(outcomes.all.isEmpty, "\(outcomes.all.prefix(5))")
    }

    @Test("a pause() from the first PROGRESS past 256 KiB of a 1 MiB download on loopback takes effect",
          arguments: Flavor.allCases)
    func pauseCatchesFastDownload(flavor: Flavor) async throws {
        let (storage, queue) = isolatedStorage(flavor)
        let ref = storage.reference().child("large/1mb.bin")
        let bytes = randomData(1024 * 1024)
        _ = try await ref.putDataAsync(bytes)
        for round in 0..<20 {
            let local = FileManager.default.temporaryDirectory.appendingPathComponent("event-order-\(UUID()).bin")
            defer { try? FileManager.default.removeItem(at: local) }
            var created: StorageDownloadTask?
            // Created and observed in one block on the callback queue, as an app's main-queue code.
            let pausedAt: Int64 = await called { done in queue.sync {
                let task = ref.write(toFile: local)
                created = task
                let asked = Recorder<Int64>()
                task.observe(.progress) { snapshot in
                    let bytesNow = snapshot.progress!.completedUnitCount
                    if asked.all.isEmpty && bytesNow > 256 * 1024 {
                        asked.add(bytesNow)
                        task.pause()
                    }
                }
                task.observe(.pause) { done($0.progress!.completedUnitCount) }
                task.observe(.success) { _ in done(-1) }
            } }
            let task = try #require(created)
            #expect(pausedAt > 256 * 1024, "round \(round): the download ended before the pause took effect")
            guard pausedAt > 0 else { return }
            #expect(!FileManager.default.fileExists(atPath: local.path))
            task.removeAllObservers()
            let finished = await called { done in
                task.observe(.success) { done($0.progress!.completedUnitCount) }
                task.resume()
            }
            #expect(finished == Int64(bytes.count))
            #expect(try Data(contentsOf: local) == bytes)
        }
    }
}
