import CCurl

/// One transfer's state while curl runs it: the context behind every curl callback's userdata.
/// Confined to the transfer thread. The loop holds one `Unmanaged` retain from `curl_multi_add_handle`
/// until after `curl_multi_remove_handle`, so curl never calls back into a freed object.
final class EasyTransfer {
    let id: TransferID
    let easy: UnsafeMutableRawPointer
    let url: String
    let callbacks: TransferCallbacks
    let body: (any RequestBody)?
    let bodyLength: Int64
    let allowsResend: Bool
    /// Hold the body sent and the response received to their speed caps.
    private var sendLimiter: SpeedLimiter
    private var receiveLimiter: SpeedLimiter
    /// Called when a callback paused the transfer to keep to a cap: the loop resumes it at
    /// this `MonotonicClock.nanoseconds()` deadline.
    var onThrottled: ((_ id: TransferID, _ resumeAt: UInt64) -> Void)?

    /// Set by `HTTPEngine.cancel` on the transfer thread: every later callback aborts at once.
    var cancelRequested = false
    /// Why a callback stopped the transfer; takes precedence over curl's code.
    private var failure: TransportError?
    /// Offset of the next body byte to read; the seek callback moves it back when curl rewinds.
    private var readOffset: Int64 = 0
    private var uploadReported: Int64 = 0
    private var head = ResponseHead()
    private var headDelivered = false
    private var responseBody: [UInt8] = []
    /// Set by `configure`; freed in `releaseResources`.
    var headerList: UnsafeMutablePointer<curl_slist>?
    let errorBuffer: UnsafeMutablePointer<CChar>

    init(id: TransferID, easy: UnsafeMutableRawPointer, request: HTTPRequest, callbacks: TransferCallbacks) {
        self.id = id
        self.easy = easy
        self.url = request.url
        self.callbacks = callbacks
        self.body = request.body
        self.bodyLength = request.body?.length ?? 0
        self.allowsResend = request.allowsResend
        sendLimiter = SpeedLimiter(request.sendCaps)
        receiveLimiter = SpeedLimiter(request.receiveCaps)
        errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE))
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE))
    }

    deinit {
        errorBuffer.deallocate()
        if let headerList { curl_slist_free_all(headerList) }
    }

    /// Frees what curl referenced; call after the handle left the multi handle.
    func releaseResources() {
        if let headerList { curl_slist_free_all(headerList) }
        headerList = nil
    }

    private var isStopped: Bool { cancelRequested || failure != nil }

    // MARK: curl callbacks (the hot path: no allocation, no locks)

    /// READFUNCTION: one `RequestBody.read` straight into curl's buffer.
    func readBody(into buffer: UnsafeMutableRawPointer, count: Int) -> Int {
        if isStopped { return Int(CURL_READFUNC_ABORT) }
        guard let body else { return 0 }
        let want = sendLimiter.readSize(Int(min(Int64(count), bodyLength - readOffset)))
        guard want > 0 else { return 0 }
        if throttled(&sendLimiter) { return Int(CURL_READFUNC_PAUSE) }
        let n = body.read(into: UnsafeMutableRawBufferPointer(start: buffer, count: want), at: readOffset)
        guard n > 0, n <= want else {
            failure = .failed(
                code: Int32(CURLE_READ_ERROR.rawValue),
                message: "request body read failed at byte \(readOffset) of \(bodyLength)")
            return Int(CURL_READFUNC_ABORT)
        }
        readOffset += Int64(n)
        sendLimiter.moved(n)
        return n
    }

    /// Whether the transfer must pause to keep to `limiter`'s cap (the loop resumes it).
    private func throttled(_ limiter: inout SpeedLimiter) -> Bool {
        let now = MonotonicClock.nanoseconds()
        let wait = limiter.delay(now: now)
        guard wait > 0, let onThrottled else { return false }
        onThrottled(id, now &+ wait)
        return true
    }

    /// SEEKFUNCTION: curl rewinds the body to resend it (e.g. on a reused connection that had closed).
    func seekBody(to offset: Int64, origin: Int32) -> Int32 {
        guard origin == SEEK_SET, offset >= 0, offset <= bodyLength, allowsResend || readOffset == 0 else {
            return CURL_SEEKFUNC_CANTSEEK
        }
        readOffset = offset
        return CURL_SEEKFUNC_OK
    }

    /// XFERINFOFUNCTION: upload progress, and the point where curl notices a cancel between reads.
    func progress(uploaded: Int64) -> Int32 {
        if isStopped { return 1 }
        reportUpload(uploaded)
        return 0
    }

    private func reportUpload(_ uploaded: Int64) {
        guard uploaded > uploadReported, let onUploadProgress = callbacks.onUploadProgress else { return }
        uploadReported = uploaded
        onUploadProgress(uploaded)
    }

    /// HEADERFUNCTION: one header line. Returns false to abort.
    func headerLine(_ line: UnsafeRawBufferPointer) -> Bool {
        if isStopped { return false }
        guard head.consume(line) else { return true }
        return deliverHead()
    }

    /// What the write callback answers curl.
    enum BodyVerdict { case taken, paused, abort }

    /// WRITEFUNCTION: body bytes of the final response. `paused`: curl hands the same bytes
    /// over again once the loop resumes the transfer.
    func bodyData(_ data: UnsafeRawBufferPointer) -> BodyVerdict {
        if isStopped { return .abort }
        if !headDelivered && !deliverHead() { return .abort }
        if throttled(&receiveLimiter) { return .paused }
        receiveLimiter.moved(data.count)
        if let onBodyData = callbacks.onBodyData {
            guard onBodyData(data) else {
                failure = .aborted
                return .abort
            }
            return .taken
        }
        guard responseBody.count + data.count <= callbacks.maxBufferedBody else {
            failure = .bodyTooLarge(limit: callbacks.maxBufferedBody)
            return .abort
        }
        responseBody.append(contentsOf: data)
        return .taken
    }

    private func deliverHead() -> Bool {
        headDelivered = true
        if callbacks.onBodyData == nil, let length = HTTPHeaders(head.fields).value("Content-Length").flatMap(Int.init) {
            responseBody.reserveCapacity(min(max(length, 0), callbacks.maxBufferedBody))
        }
        guard let onResponseHead = callbacks.onResponseHead else { return true }
        guard onResponseHead(status(), HTTPHeaders(head.fields)) else {
            failure = .aborted
            return false
        }
        return true
    }

    private func status() -> Int {
        if head.status != 0 { return head.status }
        var code = 0
        _ = ccurl_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &code)
        return code
    }

    // MARK: completion

    /// The transfer's outcome once curl is done with it (`code` from `curl_multi_info_read`).
    func result(code: CURLcode) -> Result<HTTPResponse, TransportError> {
        if cancelRequested { return .failure(.cancelled) }
        if let failure { return .failure(failure) }
        guard code == CURLE_OK else { return .failure(curlFailure(code)) }
        if body != nil {
            var sent = 0
            _ = ccurl_getinfo_off(easy, CURLINFO_SIZE_UPLOAD_T, &sent)
            reportUpload(Int64(sent))
        }
        // libcurl (7.88) ends a response whose connection closed inside its head with CURLE_OK. Such
        // a head may lack any field, Content-Length included, so neither it nor a body can be trusted.
        guard head.isComplete else {
            return .failure(.failed(code: Int32(CURLE_PARTIAL_FILE.rawValue),
                                    message: "The connection closed before the end of the response head"))
        }
        if !headDelivered && !deliverHead() { return .failure(failure ?? .aborted) }
        return .success(HTTPResponse(status: status(), headers: HTTPHeaders(head.fields), body: responseBody))
    }

    private func curlFailure(_ code: CURLcode) -> TransportError {
        var proxyStatus = 0
        _ = ccurl_getinfo_long(easy, CURLINFO_HTTP_CONNECTCODE, &proxyStatus)
        if proxyStatus >= 400 { return .proxyRefused(status: proxyStatus) }
        var message = String(cString: curl_easy_strerror(code))
        let detail = String(cString: errorBuffer)
        if !detail.isEmpty && detail != message { message += ": " + detail }
        if code == CURLE_SSL_CONNECT_ERROR && handshakeWasCut(detail) { return .handshakeInterrupted(message: message) }
        return .failed(code: Int32(code.rawValue), message: message)
    }

    /// Whether a failed TLS handshake failed because the connection went away (a reset, an EOF:
    /// a server restarting behind a load balancer) rather than because the server refused it.
    /// OpenSSL reports the former as SSL_ERROR_SYSCALL or "unexpected eof", with the socket's errno.
    private func handshakeWasCut(_ detail: String) -> Bool {
        var osErrno = 0
        _ = ccurl_getinfo_long(easy, CURLINFO_OS_ERRNO, &osErrno)
        return osErrno != 0 || detail.contains("SSL_ERROR_SYSCALL") || detail.contains("unexpected eof")
    }
}
