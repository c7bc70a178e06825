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
    /// The connection was reset or closed during the TLS handshake (curl's CURLE_SSL_CONNECT_ERROR
    /// with a socket error or an early EOF): a network failure, retried, unlike a handshake the
    /// server refused (a protocol or cipher mismatch, plain http on the port), which stays `.failed`.
    case handshakeInterrupted(message: String)
    /// The proxy answered the CONNECT of an https request with this error status (e.g. 403, 407).
    case proxyRefused(status: Int)
    /// The resolver answered that the host name does not exist (NXDOMAIN), as opposed to failing
    /// to answer: a misspelled host, which no retry fixes (see `NameProbe`).
    case hostNotFound(host: String)
    /// A libcurl call refused its arguments (an option, a multi-handle call): a bug in the library
    /// or a libcurl without a feature it needs, which no retry fixes. The message names the call.
    case rejectedByLibcurl(message: String)
    /// The request cannot be sent as asked (a header field with a control character): the caller's input.
    case invalidRequest(message: String)
}
