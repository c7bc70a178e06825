/// One HTTP request for `HTTPEngine`. A value: the engine copies what it needs when the transfer starts.
struct HTTPRequest: Sendable {
    /// "GET", "HEAD", "POST", "PUT", "PATCH", "DELETE" (any other token is sent as a custom method).
    var method: String
    /// Absolute `http://` or `https://` URL, already percent-encoded.
    var url: String
    /// Request header fields, sent in order. Names and values must not contain CR or LF.
    var headers: [(name: String, value: String)]
    /// The request body; nil = none (POST and PUT with a nil body still send `Content-Length: 0`).
    var body: (any RequestBody)?
    /// Limit for the whole request in seconds; nil = none.
    var timeout: Double?
    /// Limit for establishing the connection (TCP + TLS) in seconds.
    var connectTimeout: Double = 30
    /// Abort when less than 1 byte/s moves in either direction for this many seconds.
    var stallTimeout: Double = 60
    /// PEM CA bundle to verify the server with (`CURLOPT_CAINFO`); peer and host verification are always on.
    var caFile: String? = nil
    /// The proxy; nil: libcurl's environment variables.
    var proxy: ProxySettings? = nil
    /// Caps on the speed of the body sent and of the response received: the tightest applies,
    /// re-read while the transfer runs.
    var sendCaps: [SpeedCap] = []
    var receiveCaps: [SpeedCap] = []
    /// Whether curl may rewind and re-send the body by itself (its transparent retry when a reused
    /// connection turns out dead). Resumable-upload chunks say no: a re-sent chunk must follow a
    /// `query`, or a server that kept the first copy appends it twice.
    var allowsResend = true
    /// The answer carries an object's bytes (a media download): it gets the large receive buffer.
    /// Other answers (JSON of a few KiB) get curl's smallest useful one (see `EasySetup`).
    var receivesObjectBytes = false

    init(
        method: String, url: String, headers: [(name: String, value: String)] = [],
        body: (any RequestBody)? = nil, timeout: Double? = nil, connectTimeout: Double = 30,
        stallTimeout: Double = 60, caFile: String? = nil
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
        self.connectTimeout = connectTimeout
        self.stallTimeout = stallTimeout
        self.caFile = caFile
    }
}
