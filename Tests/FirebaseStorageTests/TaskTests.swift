// Upload and download tasks through the Apple API against the emulator: observers and their
// handles, snapshots with Foundation Progress, pause/resume, cancel.
import EmulatorProcess
import FirebaseStorage
import Foundation
import Testing

@Suite("FirebaseStorage tasks against the emulator", .timeLimit(.minutes(1)))
struct TaskTests {
    @Test("a resumable upload reports resume, progress (numbers that moved) and success with Progress; removed observers stay silent",
          arguments: Flavor.allCases)
    func observedUpload(flavor: Flavor) async throws {
        let storage = makeStorage(flavor)
        storage.uploadChunkSizeBytes = 256 * 1024
        let ref = storage.reference().child("videos/clip.bin")
        let bytes = randomData(4 * 1024 * 1024)
        let events = Recorder<(StorageTaskStatus, Int64, Int64, Bool)>()
        let removed = Recorder<StorageTaskStatus>()
        let task = ref.putData(bytes)
        // At once, before anything else waits: the upload must not end before they are there
        // (a callback queue busy with other tests' calls once held this test past its end).
        for status in [StorageTaskStatus.resume, .progress] {
            task.observe(status) { snapshot in
                events.add((snapshot.status, snapshot.progress!.completedUnitCount, snapshot.progress!.totalUnitCount,
                            TestQueue.isCurrent))
            }
        }
        // Added and removed on the callback queue: a call already dispatched to it (the task may
        // be in PROGRESS by now, which calls a new observer at once) runs after the removal.
        TestQueue.queue.sync {
            let silent = task.observe(.progress) { removed.add($0.status) }
            task.removeObserver(withHandle: silent)
        }
        let done = await called { done in task.observe(.success) { done($0) } }
        #expect(done.status == .success)
        #expect(done.progress?.completedUnitCount == Int64(bytes.count))
        #expect(done.metadata?.size == Int64(bytes.count))
        #expect(done.reference == ref && done.task === task)
        #expect(done.error == nil)
        let statuses = events.all.map(\.0)
        #expect(statuses.first == .resume)
        #expect(statuses.contains(.progress))
        #expect(events.all.allSatisfy { $0.2 == Int64(bytes.count) && $0.1 <= $0.2 && $0.3 })
        // Each chunk once: as bytes move, never again when the server confirms it (the Apple SDK's).
        let progressed = events.all.filter { $0.0 == .progress }.map(\.1)
        #expect(zip(progressed, progressed.dropFirst()).allSatisfy { $0 < $1 }, "repeated numbers: \(progressed)")
        #expect(removed.all.isEmpty)
        #expect(try await ref.data(maxSize: 8 * 1024 * 1024) == bytes)
    }

    @Test("pause and resume finish the upload; cancel fails it with cancelled", arguments: Flavor.allCases)
    func control(flavor: Flavor) async throws {
        let storage = makeStorage(flavor)
        storage.uploadChunkSizeBytes = 256 * 1024
        // Large enough that the first progress event comes long before the last chunk.
        let bytes = randomData(8 * 1024 * 1024)

        let paused = storage.reference().child("paused.bin").putData(bytes)
        let pause = await called { done in
            paused.observe(.progress) { _ in paused.pause() }
            paused.observe(.pause) { done($0) }
        }
        #expect(pause.status == .pause)
        paused.removeAllObservers(for: .progress)
        let finished = await called { done in
            paused.observe(.success) { done($0) }
            paused.resume()
        }
        #expect(finished.metadata?.size == Int64(bytes.count))

        let cancelled = storage.reference().child("cancelled.bin").putData(bytes, metadata: nil)
        let error = await called { done in
            cancelled.observe(.failure) { done($0.error) }
            cancelled.cancel()
        }
        let nsError = try #require(error as? NSError)
        #expect(StorageErrorCode(rawValue: nsError.code) == .cancelled)
        cancelled.removeAllObservers()
    }

    @Test("write(toFile:) reports progress and pauses and resumes like an upload", arguments: Flavor.allCases)
    func download(flavor: Flavor) async throws {
        let storage = makeStorage(flavor)
        let ref = storage.reference().child("images/mountains.jpg")
        let bytes = randomData(512 * 1024)
        _ = try await ref.putDataAsync(bytes)
        let local = FileManager.default.temporaryDirectory.appendingPathComponent("mountains-\(UUID()).jpg")
        defer { try? FileManager.default.removeItem(at: local) }
        let task = ref.write(toFile: local)
        let success = await called { done in task.observe(.success) { done($0) } }
        #expect(success.progress?.completedUnitCount == Int64(bytes.count))
        #expect(try Data(contentsOf: local) == bytes)
    }
}
