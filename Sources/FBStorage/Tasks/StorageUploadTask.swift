#if canImport(Glibc)
import Glibc
#endif

/// An upload: one multipart request for small objects, otherwise the resumable protocol
/// (start → chunks → finalize), streaming each chunk from the source.
///
/// Recovery never restarts from byte 0 while the server keeps the session: after a failed
/// chunk, a pause or a resume, the task asks the server (`query`) how much it has and continues
/// from there. If the server lost the session (404), the upload starts over. All state below
/// is touched only on the transfer thread; completions of abandoned requests are ignored by
/// comparing `generation`.
public final class StorageUploadTask: StorageTask, @unchecked Sendable {
    private let source: UploadSource
    private let metadata: StorageMetadata
    private let settings: StorageSettings
    private let checksums: UploadChecksums
    private let total: Int64
    private let resumeFrom: UploadSession?
    /// Resuming: the bytes the session string vouches for, until the server's first answer
    /// says how many it has (it may hold no byte beyond them; see `queryDone`).
    private var vouchedBytes: Int64?

    private var sessionURL: String?
    private var granularity: Int64 = 256 << 10
    /// Bytes the server confirmed.
    private var confirmed: Int64 = 0
    private var backoff: Backoff
    private var generation = 0
    private var transfer: TransferID?
    private var timer: TimerID?
    private var request: RetryingRequest?
    /// The chunk on the wire: its length and the bytes of it curl has sent.
    private var chunkInFlight: (length: Int64, sent: Int64)?
    private var paused = false
    private var ended = false
    /// Consecutive 4xx answers to chunks, each followed by a `query` to resynchronise.
    private var clientErrors = 0
    private let sessionLock = ConditionLock()
    private var publishedSession: UploadSession?

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
        total = source.length
        var metadata = metadata ?? StorageMetadata()
        if metadata.contentType.string == nil {
            metadata.contentType = .value(source.filePath.map(ContentTypes.forPath) ?? "application/octet-stream")
        }
        self.metadata = metadata
        self.resumeFrom = resumeFrom
        checksums = UploadChecksums(withMD5: settings.verifyMD5)
        if let resumeFrom { try Self.proveUnchanged(source, resumeFrom, checksums) }
        vouchedBytes = resumeFrom?.verifiedBytes
        backoff = Backoff(deadline: Backoff.monotonicNow() + settings.maxUploadRetryTime)
        super.init(reference: reference, totalBytes: source.length)
    }

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
        guard var session = sessionLock.withLock({ publishedSession }) else { return nil }
        (session.verifiedBytes, session.verifiedCRC32C) = checksums.prefix
        return session
    }

    // MARK: Lifecycle (transfer thread)

    override func startOnTransferThread() {
        emit(.resume, bytes: 0, total: total)
        if let resumeFrom {
            adoptSession(resumeFrom.sessionURL)
            query()
        } else {
            begin()
        }
    }

    /// A chunk whose bytes are all sent is left to finish: the server has (or will have) them, and
    /// aborting it would race the resume's `query` against the server storing them.
    override func pauseOnTransferThread() {
        guard !ended, !paused else { return }
        paused = true
        let chunkFullySent = chunkInFlight.map { $0.sent >= $0.length } ?? false
        if !chunkFullySent { abandonInFlight() }
        emit(.pause, bytes: snapshot.bytesTransferred, total: total)
    }

    override func resumeOnTransferThread() {
        guard !ended, paused else { return }
        paused = false
        resetBackoff()
        emit(.resume, bytes: snapshot.bytesTransferred, total: total)
        if transfer != nil { return }   // a fully sent chunk is still finishing; it carries on
        if sessionURL != nil { query() } else { begin() }
    }

    override func cancelOnTransferThread() {
        guard !ended else { return }
        abandonInFlight()
        if let sessionURL { sendCancelCommand(to: sessionURL) }
        fail(StorageError(code: .cancelled, message: "User cancelled the upload to \(reference.path.gsURL)"))
    }

    /// Small objects in one multipart request, others through a resumable session.
    private func begin() {
        if total <= StorageSettings.multipartThreshold { sendMultipart() } else { sendStart() }
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
        sendRequest { auth in HTTPRequest(method: "POST", url: url, headers: headers + auth, body: body) } then: { [self] response in
            finish(with: response)
        }
    }

    // MARK: Resumable

    private func sendStart() {
        let url = settings.endpoint.uploadURL(reference.path)
        let body = BytesBody(metadata.uploadJSON(objectPath: reference.fullPath))
        let headers = [(name: "X-Goog-Upload-Protocol", value: "resumable"),
                       (name: "X-Goog-Upload-Command", value: "start"),
                       (name: "X-Goog-Upload-Header-Content-Length", value: String(total)),
                       (name: "X-Goog-Upload-Header-Content-Type", value: metadata.contentType.string ?? "application/octet-stream"),
                       (name: "Content-Type", value: "application/json; charset=utf-8")]
        sendRequest { auth in HTTPRequest(method: "POST", url: url, headers: headers + auth, body: body) } then: { [self] response in
            guard response.headers.value("X-Goog-Upload-Status")?.lowercased() == "active",
                  let url = response.headers.value("X-Goog-Upload-URL"), !url.isEmpty else {
                return fail(StorageError(code: .unknown, message: "The server did not start a resumable upload",
                                         httpStatus: response.status, serverResponse: String(decoding: response.body.prefix(4096), as: UTF8.self)))
            }
            if let unit = response.headers.value("X-Goog-Upload-Chunk-Granularity").flatMap({ Int64($0) }), unit > 0 {
                granularity = unit
            }
            adoptSession(url)
            confirmed = 0
            resetBackoff()
            sendNextChunk()
        }
    }

    /// Sends the next chunk from `confirmed`; the last one also finalizes.
    private func sendNextChunk() {
        guard let sessionURL else { return begin() }
        do throws(StorageError) { try source.checkUnchanged() } catch { return fail(error) }
        guard checksums.catchUp(source, to: confirmed) else { return fail(readError()) }
        let length = min(chunkSize, total - confirmed)
        let isLast = confirmed + length == total
        let offset = confirmed
        let command = !isLast ? "upload" : (length == 0 ? "finalize" : "upload, finalize")
        var request = HTTPRequest(method: "PUT", url: sessionURL, headers: [
            (name: "X-Goog-Upload-Protocol", value: "resumable"),
            (name: "X-Goog-Upload-Command", value: command),
            (name: "X-Goog-Upload-Offset", value: String(offset)),
        ], body: ChunkBody(source: source, start: offset, length: length, checksums: checksums))
        applyChunkLimits(&request)
        request.allowsResend = false
        let generation = self.generation
        chunkInFlight = (length, 0)
        transfer = storage.engine.start(request, TransferCallbacks(
            onUploadProgress: { [self] sent in
                guard generation == self.generation else { return }
                chunkInFlight?.sent = sent
                if !paused { emit(.progress, bytes: offset + sent, total: total) }
            },
            onComplete: { [self] result in
                guard generation == self.generation else { return }
                transfer = nil
                chunkInFlight = nil
                chunkDone(result, offset: offset, length: length, isLast: isLast)
            }))
    }

    private func chunkDone(_ result: Result<HTTPResponse, TransportError>, offset: Int64, length: Int64, isLast: Bool) {
        if case .success(let response) = result, (200..<300).contains(response.status) {
            let status = response.headers.value("X-Goog-Upload-Status")?.lowercased()
            if isLast || status == "final" { return finish(with: response) }
            confirmed = response.headers.value("X-Goog-Upload-Size-Received").flatMap { Int64($0) } ?? offset + length
            clientErrors = 0
            resetBackoff()
            if paused { return }   // the chunk finished after a pause; resume continues from here
            emit(.progress, bytes: confirmed, total: total, force: true)
            return sendNextChunk()
        }
        if paused { return }   // resume will ask the server where it stands
        if case .success(let response) = result {
            switch response.status {
            case 404, 410:
                return restartAfterLostSession()
            case 400, 409, 412, 413, 416:
                // Out of step with the server (e.g. a wrong offset): ask it where it is, twice at most.
                if clientErrors < 2 {
                    clientErrors += 1
                    return query()
                }
            default:
                break
            }
        }
        do throws(StorageError) { try source.checkUnchanged() } catch { return fail(error) }
        handleFailure(AttemptOutcome(result, path: reference.path, settings: settings, mayRefreshToken: false), then: query)
    }

    /// Asks the server how many bytes it has, then continues (or finishes) from there.
    private func query() {
        guard let sessionURL else { return begin() }
        var request = HTTPRequest(method: "PUT", url: sessionURL, headers: [
            (name: "X-Goog-Upload-Protocol", value: "resumable"),
            (name: "X-Goog-Upload-Command", value: "query"),
        ])
        applyChunkLimits(&request)
        let generation = self.generation
        transfer = storage.engine.start(request, TransferCallbacks(onComplete: { [self] result in
            guard generation == self.generation else { return }
            transfer = nil
            queryDone(result)
        }))
    }

    private func queryDone(_ result: Result<HTTPResponse, TransportError>) {
        if case .success(let response) = result {
            let status = response.headers.value("X-Goog-Upload-Status")?.lowercased()
            switch (response.status, status) {
            case (200..<300, "active"):
                guard let received = response.headers.value("X-Goog-Upload-Size-Received").flatMap({ Int64($0) }),
                      (0...total).contains(received) else {
                    return fail(StorageError(code: .unknown, message: "The server's upload status has no valid X-Goog-Upload-Size-Received",
                                             httpStatus: response.status))
                }
                if let vouched = vouchedBytes {
                    vouchedBytes = nil
                    if received > vouched { return startOverUnvouched(received: received, vouched: vouched) }
                }
                confirmed = received
                LogHook.log(.info, "\(reference.path.gsURL): the server has \(received) of \(total) bytes; continuing from there")
                emit(.progress, bytes: confirmed, total: total, force: true)
                return sendNextChunk()
            case (200..<300, "final"):
                return fetchMetadataAndFinish()
            case (200..<300, _):
                return fail(StorageError(code: .unknown, message: "The server cancelled the upload session", httpStatus: response.status))
            case (404, _), (410, _):
                return restartAfterLostSession()
            default:
                break
            }
        }
        handleFailure(AttemptOutcome(result, path: reference.path, settings: settings, mayRefreshToken: false), then: query)
    }

    /// The session is gone (e.g. the server restarted): start the upload over, within the deadline.
    private func restartAfterLostSession() {
        adoptSession(nil)
        confirmed = 0
        checksums.reset()
        emit(.progress, bytes: 0, total: total, force: true)
        let cause = StorageError(code: .unknown, message: "The server no longer knows the upload session")
        // The server answered: delays grown while it failed would only idle (the soak saw 15 s
        // after an emulator restart). The deadline stays.
        backoff = Backoff(deadline: backoff.deadline)
        guard let delay = backoff.nextDelay(now: Backoff.monotonicNow(), retryAfter: nil) else {
            return fail(.retryLimit(after: cause, seconds: settings.maxUploadRetryTime, backoff: backoff))
        }
        LogHook.log(.warning, "\(reference.path.gsURL): the server lost the upload session; starting over in \((delay * 100).rounded() / 100) s")
        schedule(after: delay, begin)
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
        emit(.progress, bytes: 0, total: total, force: true)
        begin()
    }

    /// The server has every byte but its final answer was lost: read the metadata instead.
    private func fetchMetadataAndFinish() {
        let generation = self.generation
        do {
            try reference.startGetMetadata { [self] result in
                guard generation == self.generation else { return }
                switch result {
                case .success(let metadata): verifyAndSucceed(metadata)
                case .failure(let error): fail(error)
                }
            }
        } catch {
            fail(closedOr(error))
        }
    }

    // MARK: Shared steps

    /// Sends an authenticated, retried request (multipart or start).
    private func sendRequest(_ build: @escaping RetryingRequest.Build, then: @escaping @Sendable (HTTPResponse) -> Void) {
        let generation = self.generation
        let request = RetryingRequest(
            storage: storage, path: reference.path, settings: settings,
            retryTime: max(backoff.deadline - Backoff.monotonicNow(), 1), build: build,
            completion: { [self] result in
                guard generation == self.generation else { return }
                self.request = nil
                switch result {
                case .success(let response): then(response)
                case .failure(let error): fail(error, logged: true)
                }
            })
        self.request = request
        do { try request.start() } catch { fail(closedOr(error)) }
    }

    /// Backs off then runs `next`, or fails once the deadline has passed.
    private func handleFailure(_ outcome: AttemptOutcome, then next: @escaping @Sendable () -> Void) {
        switch outcome {
        case .success, .refreshToken:
            next()
        case .fail(let error):
            fail(error)
        case .retry(let cause, let retryAfter, let refused):
            guard let delay = backoff.nextDelay(now: Backoff.monotonicNow(), retryAfter: retryAfter, refused: refused) else {
                return fail(.retryLimit(after: cause, seconds: settings.maxUploadRetryTime, backoff: backoff))
            }
            RetryLog.retrying(reference.path, in: delay, after: cause)
            schedule(after: delay, next)
        }
    }

    private func schedule(after delay: Double, _ work: @escaping @Sendable () -> Void) {
        let generation = self.generation
        timer = storage.engine.schedule(after: delay) { [self] in
            guard generation == self.generation else { return }
            timer = nil
            work()
        }
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
        emit(.progress, bytes: total, total: total, force: true)
        emit(.success, bytes: total, total: total, metadata: serverMetadata)
    }

    /// Ends the task. `logged`: the failing sub-request already logged the error.
    private func fail(_ error: StorageError, logged: Bool = false) {
        guard !ended else { return }
        ended = true
        if error.code != .cancelled && !logged { RetryLog.gaveUp(reference.path, error) }
        abandonInFlight()
        emit(.failure, bytes: snapshot.bytesTransferred, total: total, error: error)
    }

    /// Stops whatever request or timer is in flight; their late completions are ignored.
    private func abandonInFlight() {
        generation += 1
        chunkInFlight = nil
        if let transfer { storage.engine.cancel(transfer) }
        if let timer { storage.engine.cancelTimer(timer) }
        request?.cancel()
        transfer = nil
        timer = nil
        request = nil
    }

    private func sendCancelCommand(to url: String) {
        var request = HTTPRequest(method: "PUT", url: url, headers: [
            (name: "X-Goog-Upload-Protocol", value: "resumable"),
            (name: "X-Goog-Upload-Command", value: "cancel"),
        ])
        request.applyLimits(settings, remaining: 10)
        _ = storage.engine.start(request, TransferCallbacks(onComplete: { _ in }))
    }

    private func adoptSession(_ url: String?) {
        sessionURL = url
        let session = url.map {
            UploadSession(sessionURL: $0, bucket: reference.bucket, object: reference.fullPath, totalBytes: total)
        }
        sessionLock.withLock { publishedSession = session }
    }

    private func resetBackoff() {
        backoff = Backoff(deadline: Backoff.monotonicNow() + settings.maxUploadRetryTime)
    }

    /// The configured chunk size in whole units of the server's granularity (at least one).
    private var chunkSize: Int64 {
        max(settings.uploadChunkSize / granularity, 1) * granularity
    }

    /// Chunks carry no auth (the session URL is the credential) and no total timeout: a large
    /// chunk on a slow link may take long; a stalled one is caught by the stall timeout.
    private func applyChunkLimits(_ request: inout HTTPRequest) {
        request.applyLimits(settings, remaining: backoff.deadline - Backoff.monotonicNow())
        request.timeout = nil
        request.stallTimeout = min(request.stallTimeout, max(settings.maxUploadRetryTime, 1))
    }

    private func readError() -> StorageError {
        StorageError(code: .unknown, message: "Could not read \(source.filePath ?? "the upload data") (errno \(errno))")
    }
}
