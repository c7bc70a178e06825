#if canImport(Glibc)
import Glibc
#endif

/// An upload: one multipart request for small objects, otherwise the resumable protocol
/// (start → chunks → finalize, `ResumableUpload`), streaming each chunk from the source.
/// A stream of unknown length (`StreamUploadSource`) is read a chunk ahead: its session is
/// opened without a size and its last chunk finalizes once the stream reports its end; a stream
/// that fails cancels the session, so no object is stored.
///
/// A state machine that issues `RetryingRequest`s, one at a time. Recovery never restarts from
/// byte 0 while the server keeps the session: a chunk's retries are status queries, and a pause
/// or a resume also asks the server how much it has, then continues from there. If the server
/// lost the session (404), the upload starts over. All state below is touched only on the
/// transfer thread; an abandoned request never calls back.
public final class StorageUploadTask: StorageTask, @unchecked Sendable {
    private let source: UploadSource
    private let metadata: StorageMetadata
    private let settings: StorageSettings
    private let checksums: UploadChecksums
    private let resumeFrom: UploadSession?
    /// Resuming: the bytes the session string vouches for, until the server's first answer
    /// says how many it has (it may hold no byte beyond them; see `sessionAnswered`).
    private var vouchedBytes: Int64?

    private var sessionURL: String?
    private var granularity: Int64 = 256 << 10
    /// Bytes the server confirmed.
    private var confirmed: Int64 = 0 {
        didSet { publishedSession.withLock { $0?.confirmedBytes = confirmed } }
    }
    /// No retry starts after it; progress moves it on, a lost session does not.
    private var deadline: Double
    /// The furthest offset any chunk request has sent to: bytes below it move again on a retry,
    /// which is no progress for the retry deadline.
    private var highestSent: Int64 = 0
    private var request: RetryingRequest?
    private var timer: TimerID?
    /// The chunk on the wire and the bytes of it curl has sent; nil while a query is.
    private var onWire: (chunk: Chunk, sent: Int64)?
    /// The chunk the last answer was to; nil: it answered a query.
    private var answered: Chunk?
    private var paused = false
    private var ended = false
    /// Consecutive out-of-step answers to chunks, each followed by a `query` to resynchronise.
    private var outOfStepAnswers = 0
    /// The step to take again once a stream whose bytes were not ready is resumed.
    private var waitingForStream: (() -> Void)?
    private let publishedSession = Locked<UploadSession?>(nil)

    /// Creates the task; `start()` sends it. `resumeFrom` continues a persisted session.
    init(reference: StorageReference, source: UploadSource, metadata: StorageMetadata?,
         resumeFrom: UploadSession? = nil) throws(StorageError) {
        guard !reference.path.isRoot else {
            throw StorageError(code: .pathError, message: "Cannot upload to the bucket root; use a child reference")
        }
        if let resumeFrom, resumeFrom.bucket != reference.bucket || resumeFrom.object != reference.fullPath {
            throw StorageError(code: .invalidArgument,
                               message: "The upload session is for gs://\(resumeFrom.bucket)/\(resumeFrom.object), not for \(reference.path.gsURL)")
        }
        try metadata?.checkHeaderFields()
        settings = reference.storage.settings
        self.source = source
        var metadata = metadata ?? StorageMetadata()
        if metadata.contentType.string == nil {
            metadata.contentType = .value(source.filePath.map(ContentTypes.forPath) ?? "application/octet-stream")
        }
        self.metadata = metadata
        self.resumeFrom = resumeFrom
        checksums = UploadChecksums(withMD5: settings.verifyMD5)
        if let resumeFrom { try Self.proveUnchanged(source, resumeFrom, checksums) }
        vouchedBytes = resumeFrom?.verifiedBytes
        deadline = reference.storage.engine.now() + settings.maxUploadRetryTime
        super.init(reference: reference, totalBytes: source.length)
        (source as? StreamUploadSource)?.onBytesReady { [weak self] in self?.streamReady() }
    }

    /// The object's size; -1 while a stream's end was not read.
    private var total: Int64 { source.length }

    /// Before a byte is sent: the file must still be what the session was uploading, its size and
    /// the prefix the session vouches for (re-read at disk speed; `checksums` keep that work).
    private static func proveUnchanged(_ source: UploadSource, _ session: UploadSession,
                                       _ checksums: UploadChecksums) throws(StorageError) {
        let file = source.filePath ?? ""
        guard session.totalBytes == source.length else {
            throw .invalidArgument("The file \(file) is \(source.length) bytes but the upload session was for \(session.totalBytes): the file changed since the session was taken. The stored object is untouched; start a new upload.")
        }
        guard checksums.catchUp(source, to: session.verifiedBytes) else {
            throw StorageError(code: .unknown, message: "Could not read \(file) (errno \(errno))")
        }
        guard checksums.crc32c.value == session.verifiedCRC32C else {
            throw .invalidArgument("The first \(session.verifiedBytes) bytes of \(file) differ from the bytes the upload session sent (CRC32C mismatch): the file changed since the session was taken. The stored object is untouched; start a new upload.")
        }
    }

    /// The resumable session to persist for `put_file_resuming`, once the server started one.
    /// It changes as the upload reads the file: persist the latest to resume furthest.
    public var uploadSession: UploadSession? {
        guard var session = publishedSession.withLock({ $0 }) else { return nil }
        (session.verifiedBytes, session.verifiedCRC32C) = checksums.prefix
        return session
    }

    // MARK: Lifecycle (transfer thread)

    override func startOnTransferThread() {
        // A resumed session starts where its server had confirmed bytes when it was taken.
        emit(.resume, bytes: resumeFrom?.confirmedBytes ?? 0, total: total)
        if let resumeFrom {
            adoptSession(resumeFrom.sessionURL)
            querySession()
        } else {
            begin()
        }
    }

    /// A chunk whose bytes are all sent is left to finish: the server has (or will have) them, and
    /// aborting it would race the resume's `query` against the server storing them.
    override func pauseOnTransferThread() {
        guard !ended, !paused else { return }
        paused = true
        let chunkFullySent = onWire.map { $0.sent >= $0.chunk.length } ?? false
        if !chunkFullySent { abandonInFlight() }
        emit(.pause, bytes: snapshot.bytesTransferred, total: total)
    }

    override func resumeOnTransferThread() {
        if !ended, !paused, let step = waitingForStream {   // the stream has bytes again
            waitingForStream = nil
            return step()
        }
        guard !ended, paused else { return }
        waitingForStream = nil
        paused = false
        moveDeadline()
        emit(.resume, bytes: snapshot.bytesTransferred, total: total)
        if request != nil { return }   // a fully sent chunk is still finishing; it carries on
        if sessionURL != nil { querySession() } else { begin() }
    }

    override func cancelOnTransferThread() {
        guard !ended else { return }
        abandonInFlight()
        if let sessionURL { sendCancelCommand(to: sessionURL) }
        sessionURL = nil   // told once
        fail(StorageError(code: .cancelled, message: "User cancelled the upload to \(reference.path.gsURL)"))
    }

    /// Ends the task as cancelled but leaves its session open on the server, so the session
    /// string resumes it later (another process included).
    override func stopForClose() {
        guard !ended else { return }
        fail(StorageError(code: .cancelled,
                          message: "The storage was closed; the upload to \(reference.path.gsURL) stopped and its session was kept for resuming"))
    }

    /// Small objects in one multipart request, others through a resumable session. A stream is
    /// read past the threshold first: one that ends before it is small.
    private func begin() {
        if let stream = source as? StreamUploadSource {
            guard fill(stream, to: StorageSettings.multipartThreshold + 1, then: { [self] in begin() }) else { return }
        }
        if total >= 0 && total <= StorageSettings.multipartThreshold { sendMultipart() } else { sendStart() }
    }

    // MARK: Multipart

    private func sendMultipart() {
        let payload = source.readAll(count: Int(total))
        do throws(StorageError) { try source.checkUnchanged() } catch { return fail(error) }
        guard let payload else { return fail(readError()) }
        checksums.reset()
        payload.withUnsafeBytes { checksums.observe($0, at: 0) }
        let boundary = Multipart.makeBoundary()
        let body = BytesBody(payload.withUnsafeBytes {
            Multipart.body(metadataJSON: metadata.uploadJSON(objectPath: reference.fullPath),
                           contentType: metadata.contentType.string ?? "application/octet-stream",
                           payload: $0, boundary: boundary)
        })
        let url = settings.endpoint.uploadURL(reference.path)
        let headers = [(name: "X-Goog-Upload-Protocol", value: "multipart"),
                       (name: "Content-Type", value: Multipart.contentTypeHeader(boundary: boundary))]
        send(build: { _, auth in HTTPRequest(method: "POST", url: url, headers: headers + auth, body: body) }) { [self] response in
            finish(with: response)
        }
    }

    // MARK: Resumable

    private func sendStart() {
        let url = settings.endpoint.uploadURL(reference.path)
        let metadataJSON = metadata.uploadJSON(objectPath: reference.fullPath)
        let contentType = metadata.contentType.string ?? "application/octet-stream"
        let total = total
        send(build: { _, auth in
            ResumableUpload.startRequest(url: url, metadataJSON: metadataJSON, contentType: contentType,
                                         total: total >= 0 ? total : nil, auth: auth)
        }) { [self] response in
            guard let session = ResumableUpload.session(from: response) else {
                return fail(StorageError(code: .unknown, message: "The server did not start a resumable upload",
                                         httpStatus: response.status, serverResponse: String(decoding: response.body.prefix(4096), as: UTF8.self)))
            }
            if let unit = session.granularity { granularity = unit }
            adoptSession(session.url)
            confirmed = 0
            moveDeadline()
            sendNextChunk()
        }
    }

    /// Sends the next chunk from `confirmed` (the last one also finalizes); its retries ask the
    /// server where it stands instead of re-sending.
    private func sendNextChunk() {
        if let stream = source as? StreamUploadSource {
            stream.release(before: confirmed)
            guard fill(stream, to: confirmed + chunkSize, then: { [self] in sendNextChunk() }) else { return }
        }
        let length = min(chunkSize, (total >= 0 ? total : .max) - confirmed)
        sendToSession(Chunk(offset: confirmed, length: length, isLast: confirmed + length == total))
    }

    /// Reads the stream up to `offset`: false when it failed the task, or has no byte ready
    /// (then `step` runs again on the next `resume()`).
    private func fill(_ stream: StreamUploadSource, to offset: Int64, then step: @escaping () -> Void) -> Bool {
        do throws(StorageError) {
            if try stream.fill(to: offset) { return true }
            waitingForStream = step
        } catch {
            fail(error)
        }
        return false
    }

    /// A descriptor's reader has bytes again (or its end): the step that waited for them goes
    /// on, unless the task is paused (its resume does then).
    private func streamReady() {
        storage.engine.perform { [self] in
            guard !ended, !paused, let step = waitingForStream else { return }
            waitingForStream = nil
            step()
        }
    }

    /// Asks the server how many bytes it has, then continues (or finishes) from there.
    private func querySession() {
        sendToSession(nil)
    }

    /// Sends `chunk` or, when nil, a query; every retry is a query.
    private func sendToSession(_ chunk: Chunk?) {
        guard let sessionURL else { return begin() }
        send(options: .init(authenticated: false, streaming: true, registered: false),
             hooks: .init(
                onUploadProgress: { [self] sent in
                    guard let offset = onWire?.chunk.offset else { return }
                    onWire?.sent = sent
                    if offset + sent > highestSent {   // bytes never sent before: progress
                        highestSent = offset + sent
                        request?.noteProgress()
                    }
                    if !paused { emit(.progress, bytes: offset + sent, total: total, paced: true) }
                },
                classify: { [self] result, outcome in
                    answered = onWire?.chunk
                    onWire = nil
                    return classifySessionAnswer(result, outcome)
                }),
             // `appCheck`: the session's requests carry no user token, but Storage wants App Check's.
             build: { [self] attempt, appCheck throws(StorageError) in
                guard attempt == 0, let chunk else {
                    var query = ResumableUpload.queryRequest(sessionURL: sessionURL)
                    query.headers += appCheck
                    return query
                }
                try source.checkUnchanged()
                guard checksums.catchUp(source, to: chunk.offset) else { throw readError() }
                onWire = (chunk, 0)
                var request = ResumableUpload.chunkRequest(
                    sessionURL: sessionURL, offset: chunk.offset, length: chunk.length, isLast: chunk.isLast,
                    body: ChunkBody(source: source, start: chunk.offset, length: chunk.length, checksums: checksums))
                request.headers += appCheck
                return request
             },
             whilePaused: true) { [self] response in
            sessionAnswered(response, chunk: answered)
        }
    }

    /// Hands session answers (404 and 410 included) to `sessionAnswered`; resynchronises an
    /// out-of-step chunk with a query (twice in a row at most); lets a pause stop the retries.
    private func classifySessionAnswer(_ result: Result<HTTPResponse, TransportError>, _ outcome: AttemptOutcome) -> AttemptOutcome {
        if case .success(let response) = result, ResumableUpload.Answer(response) != .failed {
            return .success(response)
        }
        if paused { return .fail(StorageError(code: .cancelled, message: "Paused")) }   // resume asks the server
        do throws(StorageError) { try source.checkUnchanged() } catch { return .fail(error) }
        if answered != nil, case .success(let response) = result, ResumableUpload.isOutOfStep(status: response.status),
           outOfStepAnswers < 2, case .fail(let cause) = outcome {
            outOfStepAnswers += 1
            return .retry(cause: cause, retryAfter: 0)
        }
        return outcome
    }

    /// The server's answer to a chunk (`chunk`) or a query (nil chunk).
    private func sessionAnswered(_ response: HTTPResponse, chunk: Chunk?) {
        switch ResumableUpload.Answer(response) {
        case .final where chunk != nil, .active where chunk?.isLast == true:
            finish(with: response)
        case .final:
            fetchMetadataAndFinish()
        case .active(let received):
            if let chunk {
                confirmed = received ?? chunk.offset + chunk.length
                outOfStepAnswers = 0
                moveDeadline()
                if paused { return }   // the chunk finished after a pause; resume continues from here
            } else {
                guard let received, source.retained.contains(received) else {
                    return fail(StorageError(code: .unknown, message: "The server's upload status has no valid X-Goog-Upload-Size-Received",
                                             httpStatus: response.status))
                }
                if let vouched = vouchedBytes {
                    vouchedBytes = nil
                    if received > vouched { return startOverUnvouched(received: received, vouched: vouched) }
                }
                confirmed = received
                LogHook.log(.info, "\(reference.path.gsURL): the server has \(received) of \(total) bytes; continuing from there")
            }
            emit(.progress, bytes: confirmed, total: total)
            sendNextChunk()
        case .cancelled:
            fail(StorageError(code: .unknown, message: "The server cancelled the upload session", httpStatus: response.status))
        case .lost:
            restartAfterLostSession()
        case .failed:
            fail(StorageError.http(status: response.status, body: response.body, path: reference.path))
        }
    }

    /// The session is gone (e.g. the server restarted): start the upload over, within the deadline.
    private func restartAfterLostSession() {
        guard source.retained.lowerBound == 0 else {
            return fail(StorageError(code: .unknown, message: "The server lost the upload session of \(reference.path.gsURL) after the stream's first \(source.retained.lowerBound) bytes were sent and released; a stream cannot be read again"))
        }
        adoptSession(nil)
        confirmed = 0
        checksums.reset()
        emit(.progress, bytes: 0, total: total)
        let cause = StorageError(code: .unknown, message: "The server no longer knows the upload session")
        // The server answered: delays grown while it failed would only idle (the soak saw 15 s
        // after an emulator restart). The deadline stays.
        var backoff = Backoff(deadline: deadline, refusedGrace: settings.loopbackRefusedGrace)
        guard let delay = backoff.nextDelay(now: storage.engine.now(), retryAfter: nil) else {
            return fail(.retryLimit(after: cause, seconds: settings.maxUploadRetryTime, backoff: backoff))
        }
        LogHook.log(.warning, "\(reference.path.gsURL): the server lost the upload session; starting over in \((delay * 100).rounded() / 100) s")
        timer = storage.engine.schedule(after: delay) { [self] in
            timer = nil
            begin()
        }
    }

    /// Resuming, the server has bytes beyond those the session string vouches for (it was taken
    /// before they were read): nothing proves they are the file's, so a new session uploads the
    /// whole file instead of risking a stored object that mixes two files.
    private func startOverUnvouched(received: Int64, vouched: Int64) {
        if let sessionURL { sendCancelCommand(to: sessionURL) }
        adoptSession(nil)
        confirmed = 0
        checksums.reset()
        LogHook.log(.warning, "\(reference.path.gsURL): the server has \(received) bytes of the session but its string vouches for \(vouched); starting over so that no unverified byte is stored (persist the session string as the upload progresses to resume further)")
        emit(.progress, bytes: 0, total: total)
        begin()
    }

    /// The server has every byte but its final answer was lost: read the metadata instead.
    private func fetchMetadataAndFinish() {
        let url = settings.endpoint.objectURL(reference.path)
        send(build: { _, auth in HTTPRequest(method: "GET", url: url, headers: auth) }) { [self] response in
            finish(with: response)
        }
    }

    // MARK: Shared steps

    /// Sends one retried request (the deadline is the task's); `then` gets its 2xx response, a
    /// failure ends the task. `whilePaused`: the request may finish while the task is paused
    /// (a fully sent chunk); its failure then waits for the resume.
    private func send(options: RetryingRequest.Options = .init(registered: false), hooks: RetryingRequest.Hooks = .init(),
                      build: @escaping RetryingRequest.Build, whilePaused: Bool = false,
                      then: @escaping @Sendable (HTTPResponse) -> Void) {
        let request = RetryingRequest(
            storage: storage, path: reference.path, settings: settings, retryTime: settings.maxUploadRetryTime,
            deadline: deadline, options: options.with(speedCap: speedCap), hooks: hooks, build: build,
            completion: { [self] result in
                self.request = nil
                switch result {
                case .success(let response): then(response)
                case .failure where paused && whilePaused: break
                case .failure(let error): fail(error, logged: true)
                }
            })
        self.request = request
        do { try request.start() } catch { fail(closedOr(error)) }
    }

    private func finish(with response: HTTPResponse) {
        do {
            verifyAndSucceed(try StorageMetadata.decode(json: response.body))
        } catch {
            fail(error)
        }
    }

    private func verifyAndSucceed(_ serverMetadata: StorageMetadata) {
        guard checksums.catchUp(source, to: total) else { return fail(readError()) }
        if let crc = serverMetadata.crc32c, !checksums.crc32c.matches(server: crc) {
            return fail(StorageError(code: .nonMatchingChecksum,
                                     message: "The uploaded bytes' CRC32C \(checksums.crc32c.base64) differs from the server's \(crc)"))
        }
        if let md5 = checksums.md5, let serverMD5 = serverMetadata.md5Hash, md5.base64 != serverMD5 {
            return fail(StorageError(code: .nonMatchingChecksum,
                                     message: "The uploaded bytes' MD5 \(md5.base64) differs from the server's \(serverMD5)"))
        }
        ended = true
        adoptSession(nil)
        emit(.progress, bytes: total, total: total)
        emit(.success, bytes: total, total: total, metadata: serverMetadata)
    }

    /// Ends the task. `logged`: the failing request already logged the error.
    private func fail(_ error: StorageError, logged: Bool = false) {
        guard !ended else { return }
        ended = true
        waitingForStream = nil   // the step holds the task: kept, a task ended while it waited would never go
        if error.code != .cancelled && !logged { RetryLog.gaveUp(.object(reference.path), error) }
        abandonInFlight()
        // A stream cannot be resumed elsewhere: end its session so that nothing is stored.
        if source is StreamUploadSource, let sessionURL { sendCancelCommand(to: sessionURL) }
        emit(.failure, bytes: snapshot.bytesTransferred, total: total, error: error)
    }

    /// Stops whatever request or timer is in flight; neither calls back afterwards.
    private func abandonInFlight() {
        onWire = nil
        request?.abandon()
        if let timer { storage.engine.cancelTimer(timer) }
        request = nil
        timer = nil
    }

    /// Best effort, once: the session expires on the server anyway. It carries what the
    /// session's chunks carry (the App Check token: a server enforcing App Check refuses the
    /// command without it); a token that cannot be had sends it without.
    private func sendCancelCommand(to url: String) {
        let (engine, settings, farewells) = (storage.engine, settings, storage.farewells)
        farewells.begin()   // a close lets it reach the server
        storage.credentials.credentials(for: settings.endpoint, rejected: .init(), user: false) { credentials in
            var request = ResumableUpload.cancelRequest(sessionURL: url)
            if case .success(let credentials) = credentials { request.headers += credentials.headers }
            request.applyLimits(settings, remaining: 10)
            let send: @Sendable () -> Void = { [request] in
                _ = engine.start(request, TransferCallbacks(onComplete: { _ in farewells.end() }))
            }
            if engine.isTransferThread { send() } else { engine.perform(send) }
        }
    }

    private func adoptSession(_ url: String?) {
        sessionURL = url
        // A stream's bytes are gone once sent: its session cannot be resumed elsewhere.
        let session = source is StreamUploadSource ? nil : url.map {
            UploadSession(sessionURL: $0, bucket: reference.bucket, object: reference.fullPath, totalBytes: total)
        }
        publishedSession.withLock { $0 = session }
    }

    private func moveDeadline() {
        deadline = storage.engine.now() + settings.maxUploadRetryTime
    }

    private struct Chunk {
        let offset: Int64
        let length: Int64
        /// The chunk ends the object, so it also finalizes.
        let isLast: Bool
    }

    /// The configured chunk size (a stream's: at most `StreamUploadSource.chunkLimit`, since
    /// it is kept in memory) in whole units of the server's granularity (at least one).
    private var chunkSize: Int64 {
        let configured = source is StreamUploadSource ? min(settings.uploadChunkSize, StreamUploadSource.chunkLimit) : settings.uploadChunkSize
        return max(configured / granularity, 1) * granularity
    }

    private func readError() -> StorageError {
        StorageError(code: .unknown, message: "Could not read \(source.filePath ?? "the upload data") (errno \(errno))")
    }
}
