/// What a transfer reports, all on the engine's transfer thread and in this order: upload progress,
/// the response head, body data, then exactly one `onComplete`. Nothing is called after `onComplete`.
/// These run inside libcurl callbacks: keep them quick, and do not block.
struct TransferCallbacks: Sendable {
    /// Bytes of the request body sent so far; increases strictly within one transfer.
    var onUploadProgress: (@Sendable (Int64) -> Void)? = nil
    /// The final response's status and headers, before any body byte; return false to abort.
    var onResponseHead: (@Sendable (Int, HTTPHeaders) -> Bool)? = nil
    /// If set, the body is streamed here (the buffer is valid only during the call) instead of
    /// buffered into `HTTPResponse.body`; return false to abort.
    var onBodyData: (@Sendable (UnsafeRawBufferPointer) -> Bool)? = nil
    /// Cap on the buffered body; exceeding it fails the transfer with `.bodyTooLarge`.
    var maxBufferedBody: Int = 64 << 20
    /// Called exactly once per transfer.
    var onComplete: @Sendable (Result<HTTPResponse, TransportError>) -> Void

    init(
        onUploadProgress: (@Sendable (Int64) -> Void)? = nil,
        onResponseHead: (@Sendable (Int, HTTPHeaders) -> Bool)? = nil,
        onBodyData: (@Sendable (UnsafeRawBufferPointer) -> Bool)? = nil,
        maxBufferedBody: Int = 64 << 20,
        onComplete: @escaping @Sendable (Result<HTTPResponse, TransportError>) -> Void
    ) {
        self.onUploadProgress = onUploadProgress
        self.onResponseHead = onResponseHead
        self.onBodyData = onBodyData
        self.maxBufferedBody = maxBufferedBody
        self.onComplete = onComplete
    }
}

/// Identifies a transfer of one engine; unique for the engine's lifetime.
struct TransferID: Hashable, Sendable {
    let raw: UInt64
}

/// Identifies a timer of one engine; unique for the engine's lifetime.
struct TimerID: Hashable, Sendable {
    let raw: UInt64
}
