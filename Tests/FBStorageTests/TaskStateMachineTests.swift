// The state machines (RetryingRequest, the upload and download tasks) driven by FakeEngine: every
// answer, failure and second of backoff is the test's, so each step is checked exactly and no
// test waits on a real clock or thread.
import FoundationEssentials
import Glibc
import Testing

@testable import FBStorage

@Suite("State machines on a fake engine and a virtual clock")
struct TaskStateMachineTests {
    private static let chunk: Int64 = 256 << 10

    private func makeStorage(_ change: @escaping (inout StorageSettings) -> Void = { _ in }) throws -> (Storage, FakeEngine) {
        let engine = FakeEngine()
        let storage = try Storage(bucket: "b", engine: engine)
        try storage.updateSettings { settings throws(StorageError) in change(&settings) }
        return (storage, engine)
    }

    private func metadataJSON(_ name: String, _ bytes: [UInt8]) -> [UInt8] {
        var crc = CRC32C()
        bytes.withUnsafeBytes { crc.update($0) }
        return Array(#"{"name":"\#(name)","bucket":"b","size":"\#(bytes.count)","crc32c":"\#(crc.base64)"}"#.utf8)
    }

    private func sessionStarted(_ engine: FakeEngine) throws {
        #expect(try engine.oldest.header("X-Goog-Upload-Command") == "start")
        try engine.respond(200, [("X-Goog-Upload-Status", "active"), ("X-Goog-Upload-URL", "https://upload.test/session-1")])
    }

    /// A resumable upload of `bytes` in 256 KiB chunks, its session started and its first chunk
    /// on the wire.
    private func resumableUpload(_ bytes: [UInt8]) throws -> (Storage, FakeEngine, StorageUploadTask) {
        let (storage, engine) = try makeStorage { $0.uploadChunkSize = Self.chunk }
        let task = try storage.reference("big.bin").putData(bytes)
        engine.runPosted()
        try sessionStarted(engine)
        return (storage, engine, task)
    }

    /// Starts a metadata read whose outcome lands in the returned box (on this, the transfer, thread).
    private func startGetMetadata(_ storage: Storage) throws -> Locked<Result<StorageMetadata, StorageError>?> {
        let result = Locked<Result<StorageMetadata, StorageError>?>(nil)
        try storage.reference("a.txt").startGetMetadata { outcome in result.withLock { $0 = outcome } }
        return result
    }

    private func failure(_ result: Locked<Result<StorageMetadata, StorageError>?>) throws -> StorageError {
        try #require(result.withLock { $0 }.flatMap { if case .failure(let e) = $0 { e } else { nil } })
    }

    private func active(received: Int64) -> [(String, String)] {
        [("X-Goog-Upload-Status", "active"), ("X-Goog-Upload-Size-Received", String(received))]
    }

    // MARK: Operations

    @Test("a failed operation waits out Retry-After on the engine's clock, then tries again")
    func retryAfterOnTheEngineClock() throws {
        let (storage, engine) = try makeStorage()
        defer { storage.close() }
        let result = try startGetMetadata(storage)
        #expect(engine.started == 1)
        try engine.respond(503, [("Retry-After", "7")])
        #expect(engine.inFlight.isEmpty)
        #expect(engine.nextTimerDelay == 7)
        engine.advance(by: 6.9)
        #expect(engine.started == 1)
        engine.advance(by: 0.1)
        #expect(engine.started == 2)
        try engine.respond(200, body: Array(#"{"name":"a.txt","bucket":"b","size":"3"}"#.utf8))
        #expect(try result.withLock { $0 }?.get().size == 3)
    }

    @Test("an operation gives up at its deadline, naming it and the last error")
    func operationDeadline() throws {
        let (storage, engine) = try makeStorage { $0.maxOperationRetryTime = 10 }
        defer { storage.close() }
        let start = engine.now()
        let result = try startGetMetadata(storage)
        while result.withLock({ $0 }) == nil {
            try engine.respond(503, body: Array(#"{"error":{"code":503,"message":"busy"}}"#.utf8))
            if let delay = engine.nextTimerDelay { engine.advance(by: delay) }
        }
        #expect(engine.now() - start <= 10)
        #expect(engine.started >= 4)   // 0.25-0.5, 0.5-1, 1-2, 2-4 s: at least four attempts fit
        let error = try failure(result)
        #expect(error.code == .retryLimitExceeded)
        #expect(error.message.contains("10 s"))
        #expect(error.httpStatus == 503)
    }

    @Test("a 401 asks the token provider for a fresh token once, at once; a second 401 fails")
    func tokenRefresh() throws {
        let (storage, engine) = try makeStorage()
        defer { storage.close() }
        storage.setAuthTokenProvider { forceRefresh in forceRefresh ? "fresh" : "stale" }
        let result = try startGetMetadata(storage)
        #expect(try engine.oldest.header("Authorization") == "Firebase stale")
        try engine.respond(401)
        #expect(try engine.oldest.header("Authorization") == "Firebase fresh")
        #expect(engine.nextTimerDelay == nil)
        try engine.respond(401)
        let error = try failure(result)
        #expect(error.code == .unauthenticated)
        #expect(engine.inFlight.isEmpty && engine.nextTimerDelay == nil)
    }

    // MARK: Uploads

    @Test("a failed chunk is never re-sent blindly: its retry asks the server, and the upload continues from its count")
    func chunkRetryIsAQuery() throws {
        let bytes = (0..<600_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let (storage, engine, task) = try resumableUpload(bytes)
        defer { storage.close() }
        #expect(try engine.oldest.header("X-Goog-Upload-Command") == "upload")
        #expect(try engine.oldest.header("X-Goog-Upload-Offset") == "0")
        #expect(try engine.oldest.request.allowsResend == false)
        try engine.fail(.failed(code: 56, message: "Connection reset by peer"))
        let delay = try #require(engine.nextTimerDelay)
        #expect(delay >= 0.25 && delay < 0.5)
        engine.advance(by: delay)
        #expect(try engine.oldest.header("X-Goog-Upload-Command") == "query")
        try engine.respond(200, active(received: 100_000))
        #expect(task.snapshot.bytesTransferred == 100_000)
        #expect(try engine.oldest.header("X-Goog-Upload-Offset") == "100000")
        try engine.respond(200, active(received: 100_000 + Self.chunk))
        let last = try engine.oldest
        #expect(last.header("X-Goog-Upload-Command") == "upload, finalize")
        #expect(last.request.body?.length == 600_000 - 100_000 - Self.chunk)
        try engine.respond(200, [("X-Goog-Upload-Status", "final")], body: metadataJSON("big.bin", bytes))
        #expect(task.snapshot.status == .success)
        #expect(task.snapshot.bytesTransferred == 600_000)
        #expect(engine.started == 5)
    }

    @Test("an upload whose stored bytes differ from the sent ones fails with nonMatchingChecksum")
    func uploadChecksumMismatch() throws {
        let (storage, engine) = try makeStorage()
        defer { storage.close() }
        let task = try storage.reference("small.bin").putData([1, 2, 3])
        engine.runPosted()
        #expect(try engine.oldest.header("X-Goog-Upload-Protocol") == "multipart")
        try engine.respond(200, body: metadataJSON("small.bin", [1, 2, 4]))
        #expect(task.snapshot.status == .failure)
        #expect(task.snapshot.error?.code == .nonMatchingChecksum)
    }

    @Test("a lost session starts the upload over from byte 0 after a short delay")
    func lostSessionStartsOver() throws {
        let (storage, engine, task) = try resumableUpload([UInt8](repeating: 7, count: 300_000))
        defer { storage.close() }
        try engine.respond(200, active(received: Self.chunk))
        #expect(task.snapshot.bytesTransferred == Self.chunk)
        try engine.respond(404)
        #expect(task.snapshot.bytesTransferred == 0)
        #expect(task.uploadSession == nil)
        let delay = try #require(engine.nextTimerDelay)
        #expect(delay > 0 && delay < 0.5)
        engine.advance(by: delay)
        try sessionStarted(engine)
        #expect(try engine.oldest.header("X-Goog-Upload-Offset") == "0")
    }

    @Test("an out-of-step chunk resynchronises with an immediate query, twice in a row at most")
    func outOfStepChunks() throws {
        let (storage, engine, task) = try resumableUpload([UInt8](repeating: 1, count: 300_000))
        defer { storage.close() }
        for _ in 0..<2 {
            try engine.respond(409)
            #expect(engine.nextTimerDelay == 0)
            engine.advance(by: 0)
            #expect(try engine.oldest.header("X-Goog-Upload-Command") == "query")
            try engine.respond(200, active(received: 0))
        }
        try engine.respond(409)
        #expect(task.snapshot.status == .failure)
        #expect(task.snapshot.error?.httpStatus == 409)
        #expect(engine.inFlight.isEmpty && engine.nextTimerDelay == nil)
    }

    @Test("pause lets a fully sent chunk finish and aborts a partly sent one; resume asks the server")
    func pauseAndResume() throws {
        let (storage, engine, task) = try resumableUpload([UInt8](repeating: 2, count: 800_000))
        defer { storage.close() }

        try engine.sendBody(upTo: Self.chunk)
        task.pause()
        engine.runPosted()
        #expect(task.snapshot.status == .pause)
        #expect(engine.inFlight.count == 1)   // all its bytes are on their way: the server stores them
        try engine.respond(200, active(received: Self.chunk))
        #expect(engine.inFlight.isEmpty)       // paused: nothing new starts
        task.resume()
        engine.runPosted()
        #expect(try engine.oldest.header("X-Goog-Upload-Command") == "query")
        try engine.respond(200, active(received: Self.chunk))
        #expect(try engine.oldest.header("X-Goog-Upload-Offset") == String(Self.chunk))

        try engine.sendBody(upTo: 1000)
        task.pause()
        engine.runPosted()
        #expect(engine.inFlight.isEmpty)       // aborted: a resume must not race its bytes
        #expect(task.snapshot.status == .pause)
        task.resume()
        engine.runPosted()
        #expect(try engine.oldest.header("X-Goog-Upload-Command") == "query")
    }

    @Test("cancel stops the chunk in flight, tells the server, and fails the task with cancelled")
    func cancelUpload() throws {
        let (storage, engine, task) = try resumableUpload([UInt8](repeating: 3, count: 300_000))
        defer { storage.close() }
        task.cancel()
        engine.runPosted()
        #expect(task.snapshot.status == .failure)
        #expect(task.snapshot.error?.code == .cancelled)
        #expect(engine.inFlight.count == 1)
        #expect(try engine.oldest.header("X-Goog-Upload-Command") == "cancel")
    }

    @Test("observers added while a task's events wait on the callback thread see RESUME first")
    func resumeComesFirstForLateObservers() throws {
        let (storage, engine) = try makeStorage()
        defer { storage.close() }
        let bytes = [UInt8](repeating: 5, count: 300 * 1024)
        let task = try storage.reference("late.bin").putData(bytes)
        // A first observer holds the callback thread in the task's RESUME event, so the later
        // events (PROGRESS, SUCCESS: observed, so they go through that thread) queue up behind it.
        let gate = Completion<Void>()
        _ = try task.observe(.resume) { _ in gate.wait() }
        _ = try task.observe(.progress) { _ in }
        _ = try task.observe(.success) { _ in }
        engine.runPosted()
        try sessionStarted(engine)
        try engine.respond(200, [("X-Goog-Upload-Status", "final")], body: metadataJSON("late.bin", bytes))
        #expect(task.snapshot.status == .success)
        let log = try EventLog(task)   // PROGRESS and SUCCESS are still waiting
        gate.complete(())
        _ = try #require(try task.wait(timeout: 30))
        #expect(log.statuses.first == .resume)
        #expect(log.statuses.last == .success)
    }

    // MARK: Downloads

    private func temporaryPath() -> String {
        "/tmp/fbstorage-fake-engine-\(getpid())-\(UInt64.random(in: 0...UInt64.max)).bin"
    }

    private func contents(of path: String) -> [UInt8]? {
        guard let file = fopen(path, "rb") else { return nil }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while case let n = fread(&buffer, 1, buffer.count, file), n > 0 { bytes += buffer[..<n] }
        return bytes
    }

    @Test("a cut download continues with Range from the bytes written")
    func cutDownloadContinues() throws {
        let (storage, engine) = try makeStorage()
        defer { storage.close() }
        let path = temporaryPath()
        defer { unlink(path) }
        let bytes: [UInt8] = Array("0123456789".utf8)
        let task = try storage.reference("d.bin").write(toFile: path)
        engine.runPosted()
        #expect(try engine.oldest.header("Range") == nil)
        try engine.respond(200, [("Content-Length", "10")], body: Array(bytes[..<4]))
        #expect(task.snapshot.bytesTransferred == 4)
        engine.advance(by: try #require(engine.nextTimerDelay))
        #expect(try engine.oldest.header("Range") == "bytes=4-")
        try engine.respond(206, [("Content-Range", "bytes 4-9/10")], body: Array(bytes[4...]))
        #expect(task.snapshot.status == .success)
        #expect(contents(of: path) == bytes)
    }

    @Test("a range that skips bytes the download needs fails it at once, leaving no file")
    func wrongRangeFails() throws {
        let (storage, engine) = try makeStorage()
        defer { storage.close() }
        let path = temporaryPath()
        let task = try storage.reference("d.bin").write(toFile: path)
        engine.runPosted()
        try engine.respond(200, [("Content-Length", "10")], body: Array("0123".utf8))
        engine.advance(by: try #require(engine.nextTimerDelay))
        try engine.respond(206, [("Content-Range", "bytes 6-9/10")], body: Array("6789".utf8))
        #expect(task.snapshot.status == .failure)
        #expect(task.snapshot.error?.message.contains("skipped bytes") == true)
        #expect(engine.inFlight.isEmpty && engine.nextTimerDelay == nil)
        #expect(contents(of: path) == nil)
    }

    @Test("bytes a server sends again are skipped: the sink sees each byte once")
    func resentBytesAreSkipped() throws {
        let (storage, engine) = try makeStorage()
        defer { storage.close() }
        let received = Locked<[UInt8]>([])
        let task = try storage.reference("d.bin").stream { bytes in received.withLock { $0 += bytes }; return nil }
        engine.runPosted()
        try engine.respond(200, [("Content-Length", "10"), ("x-goog-generation", "7")], body: Array("0123".utf8))
        engine.advance(by: try #require(engine.nextTimerDelay))
        #expect(try engine.oldest.header("Range") == "bytes=4-")
        // A server that ignores Range sends everything again.
        try engine.respond(200, [("Content-Length", "10"), ("x-goog-generation", "7")], body: Array("0123456789".utf8))
        #expect(task.snapshot.status == .success)
        #expect(received.withLock { $0 } == Array("0123456789".utf8))
    }

    @Test("a slice stops the answer at its end and asks only for its rest after a cut")
    func sliceOfAFullAnswer() throws {
        let (storage, engine) = try makeStorage()
        defer { storage.close() }
        let received = Locked<[UInt8]>([])
        let task = try storage.reference("d.bin").stream(range: .slice(offset: 2, length: 5)) { bytes in
            received.withLock { $0 += bytes }
            return nil
        }
        engine.runPosted()
        #expect(try engine.oldest.header("Range") == "bytes=2-6")
        try engine.respond(206, [("Content-Range", "bytes 2-6/10")], body: Array("23".utf8))   // cut after 2
        engine.advance(by: try #require(engine.nextTimerDelay))
        #expect(try engine.oldest.header("Range") == "bytes=4-6")
        try engine.respond(200, [("Content-Length", "10")], body: Array("0123456789".utf8))   // Range ignored
        #expect(task.snapshot.status == .success && task.snapshot.bytesTransferred == 5)
        #expect(received.withLock { $0 } == Array("23456".utf8))
    }

    @Test("a download paused right after its last byte succeeds on resume without a request")
    func pausedAfterTheLastByte() throws {
        let (storage, engine) = try makeStorage()
        defer { storage.close() }
        let task = try storage.reference("d.bin").stream { _ in nil }
        engine.runPosted()
        let transfer = try engine.oldest
        #expect(transfer.callbacks.onResponseHead?(200, HTTPHeaders([(name: "Content-Length", value: "4")])) == true)
        #expect(Array("0123".utf8).withUnsafeBytes { transfer.callbacks.onBodyData?($0) } == true)
        task.pause()   // on the transfer thread: at once, before the answer completes
        task.resume()
        engine.runPosted()
        #expect(task.snapshot.status == StorageTaskStatus.success)
        #expect(engine.inFlight.isEmpty && engine.started == 1)   // no request after the first
    }

    @Test("another generation mid-way fails with objectChanged; no byte of it is delivered")
    func replacedObject() throws {
        let (storage, engine) = try makeStorage()
        defer { storage.close() }
        let received = Locked<[UInt8]>([])
        let task = try storage.reference("d.bin").stream { bytes in received.withLock { $0 += bytes }; return nil }
        engine.runPosted()
        try engine.respond(200, [("Content-Length", "10"), ("x-goog-generation", "1")], body: Array("0123".utf8))
        engine.advance(by: try #require(engine.nextTimerDelay))
        try engine.respond(206, [("Content-Range", "bytes 4-9/10"), ("x-goog-generation", "2")], body: Array("ABCDEF".utf8))
        #expect(task.snapshot.error?.code == .objectChanged)
        #expect(received.withLock { $0 } == Array("0123".utf8))
        #expect(engine.inFlight.isEmpty && engine.nextTimerDelay == nil)
    }

    @Test("a 416 names the size: the empty range at the end succeeds, one past it fails")
    func unsatisfiableRanges() throws {
        let (storage, engine) = try makeStorage()
        defer { storage.close() }
        let atEnd = try storage.reference("d.bin").stream(range: .from(offset: 10)) { _ in nil }
        engine.runPosted()
        try engine.respond(416, [("Content-Range", "bytes */10")])
        #expect(atEnd.snapshot.status == .success && atEnd.snapshot.bytesTransferred == 0)
        // Production's Firebase API names the size in x-goog-stored-content-length only.
        let atEndOfFirebase = try storage.reference("d.bin").stream(range: .from(offset: 10)) { _ in nil }
        engine.runPosted()
        try engine.respond(416, [("x-goog-stored-content-length", "10")])
        #expect(atEndOfFirebase.snapshot.status == .success && atEndOfFirebase.snapshot.bytesTransferred == 0)
        let past = try storage.reference("d.bin").stream(range: .slice(offset: 9, length: 2)) { _ in nil }
        engine.runPosted()
        try engine.respond(206, [("Content-Range", "bytes 9-9/10")], body: Array("9".utf8))
        #expect(past.snapshot.error?.code == .rangeNotSatisfiable)
        #expect(past.snapshot.error?.message.contains("which has 10 bytes") == true)
    }

    @Test("a sink's error ends the download with it")
    func sinkRefuses() throws {
        let (storage, engine) = try makeStorage()
        defer { storage.close() }
        let task = try storage.reference("d.bin").stream { _ in StorageError(code: .cancelled, message: "full") }
        engine.runPosted()
        try engine.respond(200, [("Content-Length", "10")], body: Array("0123456789".utf8))
        #expect(task.snapshot.error?.code == .cancelled && task.snapshot.error?.message == "full")
        #expect(engine.inFlight.isEmpty && engine.nextTimerDelay == nil)
    }

    // MARK: Streams of unknown length

    /// Reads the oldest transfer's request body as curl would (a stream keeps only what the
    /// server has not confirmed, and hashes what is read).
    private func readBody(_ engine: FakeEngine) throws -> [UInt8] {
        let body = try #require(try engine.oldest.request.body)
        var bytes = [UInt8](repeating: 0, count: Int(body.length))
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeMutableBytes { body.read(into: UnsafeMutableRawBufferPointer(rebasing: $0[done...]), at: Int64(done)) }
            guard n > 0 else { break }
            done += n
        }
        return Array(bytes[..<done])
    }

    @Test("a stream opens a session without a size, waits when not ready, and finalizes at its end")
    func streamUpload() throws {
        let (storage, engine) = try makeStorage { $0.uploadChunkSize = Self.chunk }
        defer { storage.close() }
        let bytes = (0..<(Self.chunk + 100)).map { UInt8(truncatingIfNeeded: $0) }
        let offset = Locked(0)
        let ready = Locked(false)
        let task = try storage.reference("s.bin").putStream { buffer in
            guard ready.withLock({ $0 }) else { return .success(StorageUploadTask.streamNotReady) }
            let n = offset.withLock { position -> Int in
                let n = min(buffer.count, bytes.count - position, 50_000)
                if n > 0 { bytes.withUnsafeBytes { buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[position..<(position + n)])) } }
                position += n
                return n
            }
            return .success(n)
        }
        engine.runPosted()
        #expect(engine.inFlight.isEmpty)   // nothing to send yet
        ready.withLock { $0 = true }
        task.resume()
        engine.runPosted()
        #expect(try engine.oldest.header("X-Goog-Upload-Command") == "start")
        #expect(try engine.oldest.header("X-Goog-Upload-Header-Content-Length") == nil)
        try sessionStarted(engine)
        #expect(try engine.oldest.header("X-Goog-Upload-Command") == "upload")
        #expect(try readBody(engine) == Array(bytes[..<Int(Self.chunk)]))
        try engine.respond(200, active(received: Self.chunk))
        #expect(try engine.oldest.header("X-Goog-Upload-Command") == "upload, finalize")
        #expect(try engine.oldest.header("X-Goog-Upload-Offset") == String(Self.chunk))
        #expect(try readBody(engine) == Array(bytes[Int(Self.chunk)...]))
        try engine.respond(200, [("X-Goog-Upload-Status", "final")], body: metadataJSON("s.bin", bytes))
        #expect(task.snapshot.status == StorageTaskStatus.success)
        #expect(task.snapshot.bytesTransferred == Int64(bytes.count))
        #expect(task.uploadSession == nil)
    }

    @Test("a download's error status keeps the server's message, streamed or not")
    func downloadErrorBody() throws {
        let (storage, engine) = try makeStorage()
        defer { storage.close() }
        let task = try storage.reference("d.bin").write(toFile: temporaryPath())
        engine.runPosted()
        try engine.respond(403, body: Array(#"{"error":{"code":403,"message":"Permission denied by rules."}}"#.utf8))
        #expect(task.snapshot.error?.code == .unauthorized)
        #expect(task.snapshot.error?.serverResponse?.contains("Permission denied by rules.") == true)
    }
}
