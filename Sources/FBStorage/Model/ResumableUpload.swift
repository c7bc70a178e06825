/// The v0 resumable upload protocol (`X-Goog-Upload-*` headers), as `Multipart` is for multipart
/// uploads: the requests of a session and what the server's answers mean. Start, then chunks
/// (`upload`, the last one `upload, finalize`), a `query` for how many bytes the server has,
/// and `cancel`. See docs/reference/wire-protocol.md.
enum ResumableUpload {
    /// The request that opens a session for an object of `total` bytes (nil: not known yet,
    /// a stream; the finalizing chunk fixes the size).
    static func startRequest(url: String, metadataJSON: [UInt8], contentType: String, total: Int64?,
                             auth: [(name: String, value: String)]) -> HTTPRequest {
        let size = total.map { [(name: "X-Goog-Upload-Header-Content-Length", value: String($0))] } ?? []
        return HTTPRequest(method: "POST", url: url, headers: [
            (name: "X-Goog-Upload-Protocol", value: "resumable"),
            (name: "X-Goog-Upload-Command", value: "start"),
        ] + size + [
            (name: "X-Goog-Upload-Header-Content-Type", value: contentType),
            (name: "Content-Type", value: "application/json; charset=utf-8"),
        ] + auth, body: BytesBody(metadataJSON))
    }

    /// The session a start's response opened: its URL and the chunk granularity if the server
    /// named one; nil when the server did not open a session.
    static func session(from response: HTTPResponse) -> (url: String, granularity: Int64?)? {
        guard response.headers.value("X-Goog-Upload-Status")?.lowercased() == "active",
              let url = response.headers.value("X-Goog-Upload-URL"), !url.isEmpty else { return nil }
        let granularity = response.headers.value("X-Goog-Upload-Chunk-Granularity").flatMap { Int64($0) }
        return (url, granularity.flatMap { $0 > 0 ? $0 : nil })
    }

    /// `length` bytes at `offset` of the object; the chunk that ends the object also finalizes.
    /// The session URL is the credential: no auth headers. curl may not re-send it by itself: a
    /// re-sent chunk must follow a `query`, or a server that kept the first copy appends it twice.
    static func chunkRequest(sessionURL: String, offset: Int64, length: Int64, isLast: Bool,
                             body: any RequestBody) -> HTTPRequest {
        let command = !isLast ? "upload" : (length == 0 ? "finalize" : "upload, finalize")
        var request = HTTPRequest(method: "PUT", url: sessionURL, headers: [
            (name: "X-Goog-Upload-Protocol", value: "resumable"),
            (name: "X-Goog-Upload-Command", value: command),
            (name: "X-Goog-Upload-Offset", value: String(offset)),
        ], body: body)
        request.allowsResend = false
        return request
    }

    /// Asks how many bytes the session has.
    static func queryRequest(sessionURL: String) -> HTTPRequest {
        commandRequest("query", sessionURL: sessionURL)
    }

    /// Ends the session; the server drops its bytes.
    static func cancelRequest(sessionURL: String) -> HTTPRequest {
        commandRequest("cancel", sessionURL: sessionURL)
    }

    private static func commandRequest(_ command: String, sessionURL: String) -> HTTPRequest {
        HTTPRequest(method: "PUT", url: sessionURL, headers: [
            (name: "X-Goog-Upload-Protocol", value: "resumable"),
            (name: "X-Goog-Upload-Command", value: command),
        ])
    }

    /// What an answer to a chunk or a query says of the session.
    enum Answer: Equatable {
        /// Still open (`active`, or a 2xx without a status); `received` is
        /// `X-Goog-Upload-Size-Received` when present and a number.
        case active(received: Int64?)
        /// Every byte arrived and the object is stored; a chunk's answer carries its metadata.
        case final
        /// The server ended the session without storing the object.
        case cancelled
        /// The server no longer knows the session (404, 410): the upload must start over.
        case lost
        /// Any other status: not an answer about the session.
        case failed

        init(_ response: HTTPResponse) {
            switch response.status {
            case 200..<300:
                switch response.headers.value("X-Goog-Upload-Status")?.lowercased() {
                case "final": self = .final
                case "cancelled": self = .cancelled
                default: self = .active(received: response.headers.value("X-Goog-Upload-Size-Received").flatMap { Int64($0) })
                }
            case 404, 410: self = .lost
            default: self = .failed
            }
        }
    }

    /// Statuses a chunk gets when client and server disagree on the offset (or the chunk): a
    /// `query` resynchronises.
    static func isOutOfStep(status: Int) -> Bool {
        [400, 409, 412, 413, 416].contains(status)
    }
}
