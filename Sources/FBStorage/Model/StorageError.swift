/// An fbstorage failure: a code, a human-readable message, and the server's answer when there
/// was one. Messages never contain auth or App Check tokens.
public struct StorageError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The error code (`fbs_error_code`).
    public var code: StorageErrorCode
    /// What went wrong, for people.
    public var message: String
    /// The HTTP status of the response behind the error, if any.
    public var httpStatus: Int?
    /// The body of the response behind the error (UTF-8, lossily decoded, at most
    /// `maxServerResponseBytes` bytes), if any.
    public var serverResponse: String?

    /// The most bytes of a response body kept in `serverResponse`.
    public static let maxServerResponseBytes = 4096

    /// Creates an error.
    public init(code: StorageErrorCode, message: String, httpStatus: Int? = nil,
                serverResponse: String? = nil) {
        self.code = code
        self.message = message
        self.httpStatus = httpStatus
        self.serverResponse = serverResponse
    }

    /// `"FBS_ERR_…: message"`.
    public var description: String { "\(code.cName): \(message)" }

    // MARK: Mapping of HTTP failures

    /// Maps a failed HTTP response for the object at `path` to an error, as the Firebase SDKs
    /// do: 401 → `unauthenticated`, 402 → `quotaExceeded`, 403 → `unauthorized`,
    /// 404 → `objectNotFound`, 429 → `quotaExceeded`, anything else → `unknown`.
    ///
    /// The body is read as JSON `{"error":{"message":…}}` when it is JSON and as text
    /// otherwise; the server's message is appended to ours. `serverResponse` keeps the body.
    public static func http(status: Int, body: [UInt8], path: StoragePath) -> StorageError {
        let serverMessage = serverMessage(in: body)
        let code: StorageErrorCode
        var message: String
        switch status {
        case 401:
            code = .unauthenticated
            message = "User is not authenticated; authenticate with Firebase Authentication and try again."
        case 402:
            code = .quotaExceeded
            message = "Quota for bucket '\(path.bucket)' exceeded."
        case 403:
            code = .unauthorized
            message = "User does not have permission to access \(path.gsURL)."
        case 404:
            code = .objectNotFound
            message = "Object \(path.gsURL) does not exist."
        case 429:
            code = .quotaExceeded
            message = "Too many requests for bucket '\(path.bucket)' (HTTP 429); retry later."
        default:
            code = .unknown
            message = "Unexpected HTTP \(status) from the server"
            if let serverMessage {
                return StorageError(code: code, message: message + ": " + serverMessage,
                                    httpStatus: status, serverResponse: serverResponse(body))
            }
            message += "."
        }
        if let serverMessage {
            message += " Server: \(serverMessage)"
        }
        return StorageError(code: code, message: message, httpStatus: status,
                            serverResponse: serverResponse(body))
    }

    /// Maps a failed HTTP response about `subject`: an object as above; a service call (whose
    /// owner classifies its own errors first) as `unknown` with the server's message.
    static func http(status: Int, body: [UInt8], subject: RequestSubject) -> StorageError {
        let name: String
        switch subject {
        case .object(let path): return http(status: status, body: body, path: path)
        case .service(let service): name = service
        }
        var message = "\(name) answered HTTP \(status)"
        if let serverMessage = serverMessage(in: body) { message += ": \(serverMessage)" }
        return StorageError(code: .unknown, message: message, httpStatus: status, serverResponse: serverResponse(body))
    }

    /// The server's own message: `error.message` of a JSON body, the `error` string of a JSON
    /// body, or the text of a non-JSON body; single-lined and capped at 300 characters; `nil`
    /// when there is none.
    static func serverMessage(in body: [UInt8]) -> String? {
        var text: String
        if let json = JSONValue.parse(body) {
            if let m = json["error"]?["message"]?.stringValue {
                text = m
            } else if let m = json["error"]?.stringValue {
                text = m
            } else if let m = json["message"]?.stringValue {
                text = m
            } else {
                return nil
            }
        } else {
            text = String(decoding: body.prefix(maxServerResponseBytes), as: UTF8.self)
        }
        // One line: control characters (CR, LF, tabs…) become spaces, runs are collapsed.
        let words = text.unicodeScalars.split { $0.value < 0x20 || $0.value == 0x7F || $0 == " " }
        text = words.map { String(String.UnicodeScalarView($0)) }.joined(separator: " ")
        if text.isEmpty { return nil }
        if text.count > 300 { text = String(text.prefix(300)) + "…" }
        return text
    }

    /// The body as text for `serverResponse`: at most `maxServerResponseBytes` bytes (cut at a
    /// character boundary), invalid UTF-8 replaced; `nil` for an empty body.
    static func serverResponse(_ body: [UInt8]) -> String? {
        if body.isEmpty { return nil }
        var end = min(body.count, maxServerResponseBytes)
        // Do not cut a multi-byte sequence: while the first byte left out is a continuation
        // byte (10xxxxxx), leave out its sequence too (at most 3 steps back).
        var steps = 0
        while end < body.count, end > 0, steps < 3, body[end] & 0xC0 == 0x80 {
            end -= 1
            steps += 1
        }
        return String(decoding: body[0..<end], as: UTF8.self)
    }

    // MARK: Convenience constructors

    /// `invalidArgument` with `message`.
    public static func invalidArgument(_ message: String) -> StorageError {
        StorageError(code: .invalidArgument, message: message)
    }

    /// `pathError` with `message`.
    public static func path(_ message: String) -> StorageError {
        StorageError(code: .pathError, message: message)
    }
}
