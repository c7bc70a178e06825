/// A resumable upload session persisted as a string (`fbs_task_upload_session`), so an upload
/// can be continued later, possibly by another process (`put_file_resuming`). It holds no
/// token: the session URL alone authorises the chunk requests.
public struct UploadSession: Sendable, Equatable {
    /// The session URL from the start response's `X-Goog-Upload-URL`.
    public var sessionURL: String
    /// The bucket of the object being uploaded.
    public var bucket: String
    /// The object path being uploaded.
    public var object: String
    /// The declared size of the upload in bytes.
    public var totalBytes: Int64

    /// The current format version.
    static let version: Int64 = 1

    /// Compact JSON, keys sorted:
    /// `{"bucket":…,"object":…,"sessionURL":…,"totalBytes":N,"v":1}`.
    public func encode() -> String {
        let json = JSONValue.object([
            "v": .number(UploadSession.version),
            "sessionURL": .string(sessionURL),
            "bucket": .string(bucket),
            "object": .string(object),
            "totalBytes": .number(totalBytes),
        ])
        return String(decoding: json.serialized(), as: UTF8.self)
    }

    /// Decodes a string from `encode()`.
    /// - Throws: `invalidArgument` when it is not such a string (not JSON, another version,
    ///   a missing or mistyped field, a negative size, a session URL that is not http(s)).
    public static func decode(_ s: String) throws(StorageError) -> UploadSession {
        guard let json = JSONValue.parse(Array(s.utf8)), json.objectValue != nil else {
            throw .invalidArgument("The upload session is not a session string (not a JSON object).")
        }
        guard case .number(let v)? = json["v"], Int64(v) == version else {
            throw .invalidArgument("The upload session has an unsupported version (expected v \(version)).")
        }
        guard let url = json["sessionURL"]?.stringValue,
              let bucket = json["bucket"]?.stringValue,
              let object = json["object"]?.stringValue,
              case .number? = json["totalBytes"], let total = json["totalBytes"]?.int64Value
        else {
            throw .invalidArgument("The upload session lacks sessionURL, bucket, object or totalBytes.")
        }
        let lower = url.lowercased()
        guard lower.hasPrefix("https://") || lower.hasPrefix("http://") else {
            throw .invalidArgument("The upload session's URL is not an http(s) URL.")
        }
        guard total >= 0 else {
            throw .invalidArgument("The upload session's size is negative.")
        }
        guard !bucket.isEmpty, !object.isEmpty else {
            throw .invalidArgument("The upload session's bucket or object is empty.")
        }
        return UploadSession(sessionURL: url, bucket: bucket, object: object, totalBytes: total)
    }
}
