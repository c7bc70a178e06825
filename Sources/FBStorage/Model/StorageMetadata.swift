/// Object metadata: the writable fields a client sends, which remember whether they were set,
/// and the read-only fields the server fills in.
///
/// Writable fields start `.unset` and are not sent; `.null` is sent as JSON `null` on update
/// (deleting the field) and omitted at upload; `.value` is sent.
///
/// Custom metadata (`customMetadata`) is merged key by key on update: a key with a `nil` value
/// is deleted on the server, a key absent from the dictionary is left as it is. Use
/// `setCustom(_:_:)`, `removeCustom(_:)` and `clearCustom()` to change it.
///
/// **Clearing.** `clearCustom()` empties the dictionary and sets `clearsCustomMetadata`. If no
/// key is set afterwards, `updateJSON()` sends `"metadata": null`, which deletes every custom
/// key on the server. If keys are set after clearing, `updateJSON()` sends only those keys
/// (merged as usual): a single PATCH cannot both delete all keys and set new ones, so the keys
/// not named stay on the server. `updateJSONSteps()` gives the two PATCH bodies (clear, then
/// set) for a caller that wants "clear then set" to replace the whole map.
public struct StorageMetadata: Sendable, Equatable {
    // MARK: Writable fields

    /// `Cache-Control` served with the object.
    public var cacheControl: FieldValue = .unset
    /// `Content-Disposition` served with the object.
    public var contentDisposition: FieldValue = .unset
    /// `Content-Encoding` served with the object.
    public var contentEncoding: FieldValue = .unset
    /// `Content-Language` served with the object.
    public var contentLanguage: FieldValue = .unset
    /// `Content-Type` served with the object.
    public var contentType: FieldValue = .unset
    /// Custom key/value metadata; a `nil` value deletes the key on update.
    public var customMetadata: [String: String?] = [:]
    /// Set by `clearCustom()`: on update, every custom key on the server is deleted (see the
    /// type's documentation for keys set afterwards).
    public var clearsCustomMetadata = false

    // MARK: Read-only fields (from the server)

    /// The bucket.
    public var bucket: String?
    /// The full object path (the resource's `name`).
    public var fullPath: String?
    /// The last component of `fullPath`.
    public var name: String?
    /// Size in bytes.
    public var size: Int64?
    /// The object's generation.
    public var generation: Int64?
    /// The metadata's generation.
    public var metageneration: Int64?
    /// Creation time, in milliseconds since the Unix epoch.
    public var timeCreatedMillis: Int64?
    /// Last update time, in milliseconds since the Unix epoch.
    public var updatedMillis: Int64?
    /// Base64 MD5 of the content.
    public var md5Hash: String?
    /// CRC32C of the content as the server sent it (base64 of the big-endian value from
    /// production, a decimal string from the official emulator).
    public var crc32c: String?
    /// The download tokens (the first one makes download URLs).
    public var downloadTokens: [String] = []
    /// The entity tag.
    public var etag: String?

    /// Empty metadata: nothing set.
    public init() {}

    // MARK: Custom metadata

    /// Sets `key` to `value`; `nil` marks the key for deletion on update.
    public mutating func setCustom(_ key: String, _ value: String?) {
        customMetadata.updateValue(value, forKey: key)
    }

    /// Forgets `key` locally: nothing is sent for it.
    public mutating func removeCustom(_ key: String) {
        customMetadata.removeValue(forKey: key)
    }

    /// Forgets every key and marks custom metadata for clearing on update.
    public mutating func clearCustom() {
        customMetadata.removeAll()
        clearsCustomMetadata = true
    }

    /// The value of `key`; `nil` when absent or marked for deletion.
    public func custom(_ key: String) -> String? {
        customMetadata[key] ?? nil
    }

    /// The custom keys (including those marked for deletion) in UTF-8 byte order.
    public var sortedCustomKeys: [String] {
        customMetadata.keys.sorted(by: utf8Precedes)
    }

    // MARK: JSON

    /// The writable string fields with their JSON keys, in the order of the JS SDK's
    /// serialiser (which is also alphabetical).
    private var writableFields: [(String, FieldValue)] {
        [("cacheControl", cacheControl), ("contentDisposition", contentDisposition),
         ("contentEncoding", contentEncoding), ("contentLanguage", contentLanguage),
         ("contentType", contentType)]
    }

    /// Decodes a server metadata resource. Fields present as strings become `.value`; fields
    /// of the wrong type are ignored; custom values that are numbers or booleans become their
    /// JSON text and nulls are skipped.
    /// - Throws: `unknown` ("The server sent metadata that is not valid JSON") when the body
    ///   is not a JSON object; `serverResponse` holds the body.
    public static func decode(json: [UInt8]) throws(StorageError) -> StorageMetadata {
        var m = StorageMetadata()
        // Each member assigns its whole result, so a repeated key ends as its last occurrence says.
        let valid = JSONValue.forEachMember(ofObject: json) { key, value in
            switch key {
            case "cacheControl": m.cacheControl = field(value)
            case "contentDisposition": m.contentDisposition = field(value)
            case "contentEncoding": m.contentEncoding = field(value)
            case "contentLanguage": m.contentLanguage = field(value)
            case "contentType": m.contentType = field(value)
            case "metadata": m.customMetadata = value.objectValue.map(customValues) ?? [:]
            case "bucket": m.bucket = value.stringValue
            case "name":
                m.fullPath = value.stringValue
                m.name = value.stringValue.map { path in
                    path.utf8.lastIndex(of: UInt8(ascii: "/")).map { String(path[path.utf8.index(after: $0)...]) } ?? path
                }
            case "size": m.size = value.int64Value
            case "generation": m.generation = value.int64Value
            case "metageneration": m.metageneration = value.int64Value
            case "timeCreated": m.timeCreatedMillis = value.stringValue.flatMap(RFC3339.parseMillis)
            case "updated": m.updatedMillis = value.stringValue.flatMap(RFC3339.parseMillis)
            case "md5Hash": m.md5Hash = value.stringValue
            case "crc32c": m.crc32c = value.stringValue
            case "etag": m.etag = value.stringValue
            case "downloadTokens":
                // Split as bytes: the generic Character split cost more than the rest of the decode.
                m.downloadTokens = value.stringValue.map { tokens in
                    tokens.utf8.split(separator: UInt8(ascii: ",")).map { String(decoding: $0, as: UTF8.self) }
                } ?? []
            default: break
            }
        }
        guard valid else {
            throw StorageError(code: .unknown, message: "The server sent metadata that is not valid JSON",
                               serverResponse: StorageError.serverResponse(json))
        }
        return m
    }

    private static func field(_ value: JSONValue) -> FieldValue {
        value.stringValue.map(FieldValue.value) ?? .unset
    }

    /// Custom metadata values: strings as they are, numbers and booleans as their JSON text;
    /// null, arrays and objects are left out.
    private static func customValues(_ object: [String: JSONValue]) -> [String: String?] {
        var custom: [String: String?] = [:]
        for (key, value) in object {
            switch value {
            case .string(let s): custom[key] = .some(s)
            case .number, .bool: custom[key] = .some(String(decoding: value.serialized(), as: UTF8.self))
            case .null, .array, .object: continue
            }
        }
        return custom
    }

    /// The metadata body of an upload (multipart part or resumable start):
    /// `{"name": objectPath, <set fields>, "metadata": {…}}` in that order. Only `.value`
    /// fields are included (an upload creates a fresh object, so `.null` means "absent");
    /// custom keys with `nil` values are left out, and `"metadata"` is omitted when no key
    /// has a value. The caller sets `contentType` (or it is absent).
    public func uploadJSON(objectPath: String) -> [UInt8] {
        var members: [(String, JSONValue)] = [("name", .string(objectPath))]
        for (key, value) in writableFields {
            if case .value(let s) = value { members.append((key, .string(s))) }
        }
        let custom = customMetadata.compactMapValues { $0.map(JSONValue.string) }
        if !custom.isEmpty { members.append(("metadata", .object(custom))) }
        var out: [UInt8] = []
        JSONValue.writeObject(members, into: &out)
        return out
    }

    /// The PATCH body of an update: only what was set, keys sorted. `.null` fields are sent as
    /// `null`; custom keys as `"metadata": {"k": "v", "gone": null}`; after `clearCustom()`
    /// with no key set since, `"metadata": null`. Nothing set gives `{}`. Read-only fields are
    /// never sent.
    public func updateJSON() -> [UInt8] {
        var members: [String: JSONValue] = [:]
        addWritableFields(to: &members)
        if !customMetadata.isEmpty {
            members["metadata"] = customJSON
        } else if clearsCustomMetadata {
            members["metadata"] = .null
        }
        return JSONValue.object(members).serialized()
    }

    /// The PATCH bodies that apply this update exactly: one body (`updateJSON()`), or, after
    /// `clearCustom()` followed by `setCustom`, two bodies: the fields with
    /// `"metadata": null`, then `{"metadata": {the keys set}}`.
    public func updateJSONSteps() -> [[UInt8]] {
        guard clearsCustomMetadata, !customMetadata.isEmpty else { return [updateJSON()] }
        var first: [String: JSONValue] = [:]
        addWritableFields(to: &first)
        first["metadata"] = .null
        return [JSONValue.object(first).serialized(),
                JSONValue.object(["metadata": customJSON]).serialized()]
    }

    private func addWritableFields(to members: inout [String: JSONValue]) {
        for (key, value) in writableFields {
            switch value {
            case .unset: continue
            case .null: members[key] = .null
            case .value(let s): members[key] = .string(s)
            }
        }
    }

    private var customJSON: JSONValue {
        .object(customMetadata.mapValues { $0.map(JSONValue.string) ?? .null })
    }
}
