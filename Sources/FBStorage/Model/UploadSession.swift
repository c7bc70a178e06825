/// A resumable upload session persisted as a string (`fbs_task_upload_session`), so an upload
/// can be continued later, possibly by another process (`put_file_resuming`). It holds no
/// token: the session URL alone authorises the chunk requests.
///
/// It also pins the local bytes: `verifiedBytes` and `verifiedCRC32C` are the length and CRC32C
/// of the file's prefix read for sending when the string was taken, a superset of what the server
/// can have received from it. A resume re-reads that prefix and refuses a file that changed, so a
/// stored object is never a mix of two files.
public struct UploadSession: Sendable, Equatable {
    /// The session URL from the start response's `X-Goog-Upload-URL`.
    public var sessionURL: String
    /// The bucket of the object being uploaded.
    public var bucket: String
    /// The object path being uploaded.
    public var object: String
    /// The declared size of the upload in bytes: the file's size.
    public var totalBytes: Int64
    /// How many bytes from the start of the file had been read for sending.
    public var verifiedBytes: Int64
    /// The CRC32C of those bytes.
    public var verifiedCRC32C: UInt32
    /// How many bytes the server had confirmed when the string was taken: a prefix the session
    /// keeps, where a resumed upload's RESUME event starts. 0 in strings that predate it.
    public var confirmedBytes: Int64

    /// The current format version.
    static let version: Int64 = 2

    public init(sessionURL: String, bucket: String, object: String, totalBytes: Int64,
                verifiedBytes: Int64 = 0, verifiedCRC32C: UInt32 = 0, confirmedBytes: Int64 = 0) {
        self.sessionURL = sessionURL
        self.bucket = bucket
        self.object = object
        self.totalBytes = totalBytes
        self.verifiedBytes = verifiedBytes
        self.verifiedCRC32C = verifiedCRC32C
        self.confirmedBytes = confirmedBytes
    }

    /// Compact JSON, keys sorted: `{"bucket":…,"confirmedBytes":N,"object":…,"sessionURL":…,
    /// "totalBytes":N,"v":2,"verifiedBytes":N,"verifiedCRC32C":N}`.
    public func encode() -> String {
        let json = JSONValue.object([
            "v": .number(UploadSession.version),
            "sessionURL": .string(sessionURL),
            "bucket": .string(bucket),
            "object": .string(object),
            "totalBytes": .number(totalBytes),
            "verifiedBytes": .number(verifiedBytes),
            "verifiedCRC32C": .number(Int64(verifiedCRC32C)),
            "confirmedBytes": .number(confirmedBytes),
        ])
        return String(decoding: json.serialized(), as: UTF8.self)
    }

    /// Decodes a string from `encode()`.
    /// - Throws: `invalidArgument` when it is not such a string (not JSON, another version,
    ///   a missing or mistyped field, a negative size, a verified prefix outside the size or a
    ///   CRC outside 32 bits, confirmed bytes outside the verified prefix, a session URL that is
    ///   not http(s)).
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
              case .number? = json["totalBytes"], let total = json["totalBytes"]?.int64Value,
              case .number? = json["verifiedBytes"], let verified = json["verifiedBytes"]?.int64Value,
              case .number? = json["verifiedCRC32C"], let crc = json["verifiedCRC32C"]?.int64Value
        else {
            throw .invalidArgument("The upload session lacks sessionURL, bucket, object, totalBytes, verifiedBytes or verifiedCRC32C.")
        }
        var confirmed: Int64 = 0
        if let field = json["confirmedBytes"] {
            guard case .number = field, let value = field.int64Value else {
                throw .invalidArgument("The upload session's confirmedBytes is not a number.")
            }
            confirmed = value
        }
        let lower = url.lowercased()
        guard lower.hasPrefix("https://") || lower.hasPrefix("http://") else {
            throw .invalidArgument("The upload session's URL is not an http(s) URL.")
        }
        guard total >= 0 else {
            throw .invalidArgument("The upload session's size is negative.")
        }
        guard (0...total).contains(verified), (0...Int64(UInt32.max)).contains(crc) else {
            throw .invalidArgument("The upload session's verified prefix is not within its size, or its CRC32C is not 32 bits.")
        }
        guard (0...verified).contains(confirmed) else {
            throw .invalidArgument("The upload session's confirmed bytes are not within its verified prefix.")
        }
        guard !bucket.isEmpty, !object.isEmpty else {
            throw .invalidArgument("The upload session's bucket or object is empty.")
        }
        return UploadSession(sessionURL: url, bucket: bucket, object: object, totalBytes: total,
                             verifiedBytes: verified, verifiedCRC32C: UInt32(crc), confirmedBytes: confirmed)
    }
}
