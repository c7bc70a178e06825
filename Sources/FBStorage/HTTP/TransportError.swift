/// Why a transfer produced no HTTP response. HTTP error statuses are not transport errors: they
/// complete with `.success` and the service layer maps them.
enum TransportError: Error, Sendable, Equatable {
    /// `HTTPEngine.cancel` or `shutdown` was called before the transfer completed.
    case cancelled
    /// `onResponseHead` or `onBodyData` returned false.
    case aborted
    /// The buffered response body exceeded `TransferCallbacks.maxBufferedBody`.
    case bodyTooLarge(limit: Int)
    /// libcurl failed: its `CURLcode` and a message made of `curl_easy_strerror` and the error buffer.
    /// The message never contains header values (they may hold credentials).
    case failed(code: Int32, message: String)
    /// The proxy answered the CONNECT of an https request with this error status (e.g. 403, 407).
    case proxyRefused(status: Int)
}
