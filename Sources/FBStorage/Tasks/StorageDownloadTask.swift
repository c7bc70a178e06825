/// A download of an object, or of a byte range of it (`ByteRange`), into a `DownloadSink` (a
/// file, a caller's callback or buffer, a file descriptor); observable like an upload.
///
/// Each byte reaches the sink once and in order. After a dropped connection, a pause or a
/// resume the download continues with `Range` from the first byte not delivered yet: the
/// retries of its one `RetryingRequest` each ask for the rest; bytes a server sends again (a
/// 200 to a `Range` request) are skipped. Every answer must come from the object's first
/// generation (`x-goog-generation`), else the download fails with `objectChanged` rather than
/// mix two versions. When the whole object was read, its CRC32C (from `x-goog-hash`) is
/// checked. State is touched only on the transfer thread.
public final class StorageDownloadTask: StorageTask, @unchecked Sendable {
    private let settings: StorageSettings
    private let range: ByteRange?
    private let sink: DownloadSink
    /// The object's bytes `[start, end)` the download delivers, once an answer told the size.
    private var window: Range<Int64>?
    private var objectSize: Int64 = -1
    private var generation: String?
    /// Bytes of the window handed to the sink, in all and before the current attempt.
    private var delivered: Int64 = 0
    private var deliveredBeforeAttempt: Int64 = 0
    /// The object offset of the next body byte of the current answer.
    private var bodyOffset: Int64 = 0
    /// Every byte of the window was delivered while the answer went on (a server that sent more
    /// than asked for): the request was stopped on purpose.
    private var windowFilled = false
    private var crc32c = CRC32C()
    private var expectedCRC: String?
    private var request: RetryingRequest?
    private var paused = false
    private var ended = false

    init(reference: StorageReference, range: ByteRange? = nil, sink: DownloadSink) throws(StorageError) {
        try reference.requireObject()
        try range?.validate()
        self.range = range
        self.sink = sink
        settings = reference.storage.settings
        super.init(reference: reference, totalBytes: -1)
    }

    /// The window's size, -1 while unknown.
    private var total: Int64 { window.map { $0.upperBound - $0.lowerBound } ?? -1 }

    // MARK: Lifecycle (transfer thread)

    override func startOnTransferThread() {
        emit(.resume, bytes: 0, total: total)
        sendRequest()
    }

    override func pauseOnTransferThread() {
        guard !ended, !paused else { return }
        paused = true
        abandonInFlight()
        emit(.pause, bytes: delivered, total: total)
    }

    override func resumeOnTransferThread() {
        guard !ended, paused else { return }
        paused = false
        emit(.resume, bytes: delivered, total: total)
        sendRequest()
    }

    override func cancelOnTransferThread() {
        fail(StorageError(code: .cancelled, message: "User cancelled the download of \(reference.path.gsURL)"))
    }

    // MARK: The request

    /// One retried GET streaming into the sink; each attempt asks for the bytes not delivered yet.
    private func sendRequest() {
        // Paused (or cut) right after the last byte: there is nothing left to ask for.
        if let window, delivered == Int64(window.count) { return succeed() }
        let target = reference.mediaTarget
        let request = RetryingRequest(
            storage: storage, path: reference.path, settings: settings, retryTime: settings.maxDownloadRetryTime,
            options: .init(authenticated: target.authenticated, streaming: true, registered: false, speedCap: speedCap),
            hooks: .init(
                onResponseHead: { [self] status, headers in responseHead(status: status, headers: headers) },
                onBodyData: { [self] bytes in received(bytes) },
                classify: { [self] result, outcome in classify(result, outcome) }),
            build: { [self] _, auth in
                deliveredBeforeAttempt = delivered
                var request = HTTPRequest(method: "GET", url: target.url, headers: auth + (rangeHeader().map { [(name: "Range", value: $0)] } ?? []))
                request.receivesObjectBytes = true
                return request
            },
            completion: { [self] result in
                self.request = nil
                switch result {
                case .success: succeed()
                case .failure where windowFilled: succeed()
                case .failure(let error): fail(error, logged: true)
                }
            })
        self.request = request
        do { try request.start() } catch { fail(closedOr(error)) }
    }

    /// The `Range` of the next attempt: the range as asked until the size is known, then the
    /// window's bytes not delivered yet.
    private func rangeHeader() -> String? {
        guard let window else {
            if let range { return range.firstRequestHeader }
            return delivered > 0 ? "bytes=\(delivered)-" : nil
        }
        let next = window.lowerBound + delivered
        if window.upperBound < objectSize { return "bytes=\(next)-\(max(window.upperBound - 1, next))" }
        return next > 0 ? "bytes=\(next)-" : nil
    }

    private func responseHead(status: Int, headers: HTTPHeaders) -> StorageError? {
        let size: Int64
        switch status {
        case 200:
            bodyOffset = 0
            size = headers.value("Content-Length").flatMap { Int64($0) } ?? -1
        case 206:
            guard let value = headers.value("Content-Range"), let (first, rangeSize) = Self.parseContentRange(value) else {
                return StorageError(code: .unknown, message: "Download failed: the server answered with an unexpected range")
            }
            bodyOffset = first
            size = rangeSize
        default:
            return nil
        }
        if let error = checkGeneration(headers.value("x-goog-generation")) { return error }
        if size >= 0 {
            if objectSize >= 0 && size != objectSize { return objectChanged() }
            objectSize = size
        }
        if window == nil, let error = openWindow() { return error }
        if let window, window.isEmpty || delivered == Int64(window.count) {
            windowFilled = true
            return Self.stopped
        }
        if bodyOffset > (window?.lowerBound ?? 0) + delivered {
            return StorageError(code: .unknown, message: "Download failed: the server skipped bytes the download still needs")
        }
        expectedCRC = headers.value("x-goog-hash").flatMap(Self.crc32cFromHashHeader)
        return nil
    }

    /// Fixes the window once the object's size is known (the whole object needs no size).
    private func openWindow() -> StorageError? {
        guard let range else {
            if objectSize >= 0 {
                window = 0..<objectSize
                return sink.expect(objectSize)
            }
            return nil
        }
        guard objectSize >= 0 else {
            return StorageError(code: .unknown, message: "Download failed: the server did not tell the size of \(reference.path.gsURL)")
        }
        do throws(StorageError) {
            let window = try range.window(size: objectSize, of: reference.path)
            self.window = window
            return sink.expect(Int64(window.count))
        } catch {
            return error
        }
    }

    private func checkGeneration(_ value: String?) -> StorageError? {
        guard let value else { return nil }
        guard let generation else {
            generation = value
            return nil
        }
        return value == generation ? nil : objectChanged()
    }

    private func objectChanged() -> StorageError {
        StorageError(code: .objectChanged,
                     message: "\(reference.path.gsURL) was replaced while it was downloaded (after \(delivered) bytes); no byte of the new version was delivered")
    }

    /// Hands the bytes of the window to the sink, skipping those delivered before.
    private func received(_ bytes: UnsafeRawBufferPointer) -> StorageError? {
        var rest = bytes[...]
        let next = (window?.lowerBound ?? 0) + delivered
        if bodyOffset < next {
            let skip = Int(min(next - bodyOffset, Int64(rest.count)))
            rest = rest.dropFirst(skip)
            bodyOffset += Int64(skip)
        }
        if let window { rest = rest.prefix(Int(max(0, window.upperBound - bodyOffset))) }
        if !rest.isEmpty {
            let block = UnsafeRawBufferPointer(rebasing: rest)
            if let error = sink.write(block) { return error }
            crc32c.update(block)
            delivered += Int64(block.count)
            bodyOffset += Int64(block.count)
            request?.noteProgress()
            emit(.progress, bytes: delivered, total: total, paced: true)
        }
        if let window, delivered == Int64(window.count), rest.count < bytes.count {
            windowFilled = true   // the answer goes on past the window: stop it here
            return Self.stopped
        }
        return nil
    }

    /// Ends the attempt without an error of its own: the window is filled.
    private static let stopped = StorageError(code: .cancelled, message: "The range is complete")

    /// A 416 is the range's verdict; an answer that ended early is retried for the rest. An
    /// attempt that delivered bytes retries at once: the backoff is for a server that answers
    /// nothing, not for a link that drops now and then.
    private func classify(_ result: Result<HTTPResponse, TransportError>, _ outcome: AttemptOutcome) -> AttemptOutcome {
        if case .success(let response) = result, response.status == 416 {
            return unsatisfiable(response)
        }
        var outcome = outcome
        if case .success = outcome, let window, delivered < Int64(window.count) {
            outcome = .retry(cause: StorageError(code: .unknown, message: "The download ended after \(delivered) of \(window.count) bytes"),
                             retryAfter: nil)
        }
        if case .retry(let cause, nil, let refused) = outcome, delivered > deliveredBeforeAttempt {
            return .retry(cause: cause, retryAfter: 0, refused: refused)
        }
        return outcome
    }

    /// A 416 names the size: an empty range at the end is satisfied; any other range reaches
    /// past the end. Production's Firebase API says the size in `x-goog-stored-content-length`
    /// (its XML `InvalidRange` page has no `Content-Range`), other servers in
    /// `Content-Range: bytes */<size>` (RFC 9110).
    private func unsatisfiable(_ response: HTTPResponse) -> AttemptOutcome {
        let contentRangeSize = response.headers.value("Content-Range").flatMap { value -> Int64? in
            guard value.hasPrefix("bytes */") else { return nil }
            return Int64(value.dropFirst(8))
        }
        let size = contentRangeSize ?? response.headers.value("x-goog-stored-content-length").flatMap { Int64($0) }
        guard let size, window == nil, let range else {
            return .fail(StorageError(code: .rangeNotSatisfiable,
                                      message: "The server found the range \(range?.description ?? "asked for") past the end of \(reference.path.gsURL)",
                                      httpStatus: 416))
        }
        objectSize = size
        do throws(StorageError) {
            let window = try range.window(size: size, of: reference.path)
            guard window.isEmpty else { throw StorageError(code: .unknown, message: "The server refused a range within \(reference.path.gsURL)") }
            self.window = window
            return .success(response)
        } catch {
            return .fail(error)
        }
    }

    /// Every byte is here. The last PROGRESS goes first and the end waits until it and those
    /// before it reached their observers: on a fast link the bytes come before the callback
    /// thread ran an observer that pauses or cancels, and such a call still takes effect (a
    /// pause then resumes straight to the end).
    private func succeed() {
        afterProgressDelivered { [self] in
            guard !ended, !paused else { return }
            emit(.progress, bytes: delivered, total: delivered)
            afterProgressDelivered { [self] in
                guard !ended, !paused else { return }
                finish()
            }
        }
    }

    private func finish() {
        // A cancel() that returned before this point wins, even if its turn here has not come yet.
        if isCancelRequested { return cancelOnTransferThread() }
        let wholeObject = range == nil || (objectSize >= 0 && window == 0..<objectSize)
        if wholeObject, let expectedCRC, !crc32c.matches(server: expectedCRC) {
            return fail(StorageError(code: .nonMatchingChecksum,
                                     message: "The downloaded bytes' CRC32C \(crc32c.base64) differs from the server's \(expectedCRC)"))
        }
        if let error = sink.finish() { return fail(error) }
        ended = true
        emit(.success, bytes: delivered, total: delivered)
    }

    /// Ends the task. `logged`: the failing request already logged the error.
    private func fail(_ error: StorageError, logged: Bool = false) {
        guard !ended else { return }
        ended = true
        if error.code != .cancelled && !logged { RetryLog.gaveUp(.object(reference.path), error) }
        abandonInFlight()
        sink.discard()
        emit(.failure, bytes: delivered, total: total, error: error)
    }

    private func abandonInFlight() {
        request?.abandon()
        request = nil
    }

    // MARK: Header parsing

    /// The first offset and the total size (-1 for `*`) of `bytes <first>-<last>/<size>`.
    static func parseContentRange(_ value: String) -> (first: Int64, size: Int64)? {
        guard value.hasPrefix("bytes ") else { return nil }
        let parts = value.dropFirst(6).split(separator: "/")
        guard parts.count == 2, let first = parts[0].split(separator: "-").first.flatMap({ Int64($0) }) else { return nil }
        return (first, Int64(parts[1]) ?? -1)
    }

    /// The `crc32c=<base64>` part of `x-goog-hash: crc32c=…,md5=…`.
    static func crc32cFromHashHeader(_ value: String) -> String? {
        for part in value.split(separator: ",") {
            let item = part.trimmingCharacters(in: " ")
            if item.hasPrefix("crc32c=") { return String(item.dropFirst(7)) }
        }
        return nil
    }
}

private extension Substring {
    func trimmingCharacters(in character: Character) -> Substring {
        var result = self
        while result.first == character { result = result.dropFirst() }
        while result.last == character { result = result.dropLast() }
        return result
    }
}
