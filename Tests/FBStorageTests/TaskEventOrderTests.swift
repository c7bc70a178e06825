// The core's event contract against the bundled emulator: every PROGRESS of a task before its
// SUCCESS or FAILURE, which is its last event; the last PROGRESS carries the final numbers; a
// pause() from a PROGRESS observer takes effect before the end of a download on loopback.
import Dispatch
import FoundationEssentials
import Testing

@testable import FBStorage

@Suite("Task event order against the emulator", .timeLimit(.minutes(3)))
struct TaskEventOrderTests {
    /// Observers of every status, added before the task starts (`prepare`).
    private func logging(_ log: Locked<[StorageTaskSnapshot]>) -> (StorageTask) -> Void {
        { task in
            for status in [StorageTaskStatus.resume, .progress, .pause, .success, .failure] {
                _ = try! task.observe(status) { snapshot in log.withLock { $0.append(snapshot) } }
            }
        }
    }

    @Test("1,000 small tasks (500 uploads, 500 downloads): PROGRESS with the final numbers, then the end, then nothing")
    func smallTasks() throws {
        let storage = try Emulator.shared(.production).storage()
        defer { storage.close() }
        let bytes = Array("Hello Swift World".utf8)
        let file = LocalFile(bytes: [], suffix: ".txt")
        defer { file.remove() }
        var problems: [String] = []
        for index in 0..<500 {
            let ref = try storage.reference("small/\(index).txt")
            let uploadLog = Locked<[StorageTaskSnapshot]>([])
            let upload = try ref.putData(bytes, prepare: logging(uploadLog))
            _ = try #require(try upload.wait(timeout: 60))
            let downloadLog = Locked<[StorageTaskSnapshot]>([])
            let download = try ref.write(toFile: file.path, prepare: logging(downloadLog))
            _ = try #require(try download.wait(timeout: 60))
            for (name, log) in [("upload", uploadLog), ("download", downloadLog)] {
                // wait() returned after the end's observers: any event after it would be a late one.
                let events = log.withLock { $0 }
                let statuses = events.map(\.status)
                let progress = events.filter { $0.status == .progress }
                if statuses.first != .resume || statuses.last != .success || statuses.filter(\.isTerminal).count != 1
                    || progress.last?.bytesTransferred != 17 || progress.last?.totalBytes != 17 {
                    problems.append("\(name) \(index): \(statuses.map(\.rawValue)) \(progress.map(\.bytesTransferred))")
                }
            }
        }
        #expect(problems.isEmpty, "\(problems.prefix(5))")
    }

    @Test("a pause() from the first PROGRESS past 256 KiB of a 1 MiB download takes effect, every time",
          arguments: Flavor.allCases)
    func pauseFromProgress(flavor: Flavor) throws {
        let storage = try Emulator.shared(flavor).storage()
        defer { storage.close() }
        let bytes = patternBytes(1 << 20, seed: 11)
        let ref = try storage.reference("large/1mb.bin")
        _ = try #require(try ref.putData(bytes).wait(timeout: 60))
        let file = LocalFile(bytes: [], suffix: ".bin")
        defer { file.remove() }
        for round in 0..<20 {
            let paused = DispatchSemaphore(value: 0)
            let pausedAt = Locked<Int64?>(nil)
            let asked = Locked(false)
            let task = try ref.write(toFile: file.path) { task in
                _ = try! task.observe(.progress) { snapshot in
                    guard snapshot.bytesTransferred > 256 << 10 else { return }
                    let first = asked.withLock { asked in
                        defer { asked = true }
                        return !asked
                    }
                    if first { task.pause() }
                }
                _ = try! task.observe(.pause) { snapshot in
                    pausedAt.withLock { $0 = snapshot.bytesTransferred }
                    paused.signal()
                }
                _ = try! task.observe(.success) { _ in paused.signal() }
            }
            #expect(paused.wait(timeout: .now() + 60) == .success)
            let at = try #require(pausedAt.withLock { $0 }, "round \(round): the download ended before the pause took effect")
            #expect(at > 256 << 10)
            #expect(task.snapshot.status == .pause)
            task.resume()
            let final = try #require(try task.wait(timeout: 60))
            #expect(final.status == .success, "\(String(describing: final.error))")
            #expect(LocalFile.read(file.path) == bytes)
        }
    }
}
