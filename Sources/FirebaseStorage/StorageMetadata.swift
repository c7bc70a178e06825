import FBStorage
import Foundation

/// An object's metadata, as in the Apple SDK: writable optional properties a client sets, and
/// read-only ones the server fills in.
///
/// In `updateMetadata(_:)` only the properties assigned on this instance are sent: assigning a
/// value sets that field, assigning `nil` deletes it. Assigning `customMetadata` replaces the
/// custom keys: keys this metadata came with (from the server) and no longer has are deleted;
/// assigning `nil` deletes every custom key.
open class StorageMetadata {
    /// The core's metadata: which fields were set, and the server's values.
    var core: FBStorage.StorageMetadata
    /// The custom keys the metadata came with, deleted on update when assigned away.
    private let initialCustomKeys: Set<String>

    /// Empty metadata: nothing set.
    public convenience init() {
        self.init(core: FBStorage.StorageMetadata())
    }

    /// Metadata from a dictionary of the JSON resource's keys (`"contentType"`, `"metadata"`,
    /// `"name"`, `"size"`, …), as `dictionaryRepresentation()` returns.
    public convenience init(dictionary: [String: AnyHashable]) {
        let json = dictionary.mapValues(\.base).filter { JSONSerialization.isValidJSONObject([$0.value]) }
        let bytes = (try? JSONSerialization.data(withJSONObject: json)).map { [UInt8]($0) } ?? Array("{}".utf8)
        self.init(core: (try? FBStorage.StorageMetadata.decode(json: bytes)) ?? FBStorage.StorageMetadata())
    }

    init(core: FBStorage.StorageMetadata) {
        self.core = core
        initialCustomKeys = Set(core.customMetadata.keys)
    }

    // MARK: Writable

    /// `Cache-Control` served with the object.
    public var cacheControl: String? {
        get { core.cacheControl.string }
        set { core.cacheControl = FieldValue(newValue) }
    }

    /// `Content-Disposition` served with the object.
    public var contentDisposition: String? {
        get { core.contentDisposition.string }
        set { core.contentDisposition = FieldValue(newValue) }
    }

    /// `Content-Encoding` served with the object.
    public var contentEncoding: String? {
        get { core.contentEncoding.string }
        set { core.contentEncoding = FieldValue(newValue) }
    }

    /// `Content-Language` served with the object.
    public var contentLanguage: String? {
        get { core.contentLanguage.string }
        set { core.contentLanguage = FieldValue(newValue) }
    }

    /// `Content-Type` of the object; inferred from a file's extension at upload when unset.
    public var contentType: String? {
        get { core.contentType.string }
        set { core.contentType = FieldValue(newValue) }
    }

    /// User-provided key/value pairs; nil when there are none.
    public var customMetadata: [String: String]? {
        get {
            let values = core.customMetadata.compactMapValues { $0 }
            return values.isEmpty ? nil : values
        }
        set {
            guard let newValue else { return core.clearCustom() }
            var custom: [String: String?] = [:]
            for key in initialCustomKeys where newValue[key] == nil { custom[key] = .some(nil) }
            for (key, value) in newValue { custom[key] = value }
            core.customMetadata = custom
            core.clearsCustomMetadata = false
        }
    }

    // MARK: Read-only (from the server)

    /// The bucket; "" until the server sent it.
    public var bucket: String { core.bucket ?? "" }
    /// Base64 MD5 of the content.
    public var md5Hash: String? { core.md5Hash }
    /// The object's generation; 0 when unknown.
    public var generation: Int64 { core.generation ?? 0 }
    /// The metadata's generation; 0 when unknown.
    public var metageneration: Int64 { core.metageneration ?? 0 }
    /// The last path component, `object.txt` in `gs://bucket/path/to/object.txt`.
    public var name: String? { core.name }
    /// The full path, `path/to/object.txt` in `gs://bucket/path/to/object.txt`.
    public var path: String? { core.fullPath }
    /// The content's size in bytes; 0 when unknown.
    public var size: Int64 { core.size ?? 0 }
    /// When the object was created.
    public var timeCreated: Date? { core.timeCreatedMillis.map(Self.date) }
    /// When the object's metadata was last updated.
    public var updated: Date? { core.updatedMillis.map(Self.date) }

    /// True for metadata of an object the server described.
    public var isFile: Bool { core.fullPath != nil }
    /// Never true: Cloud Storage has no folder objects.
    public var isFolder: Bool { false }

    /// The metadata as the JSON resource's keys: `bucket`, the set string fields, `md5Hash`,
    /// `size`, `generation` and `metageneration` (as strings), `timeCreated`, `updated`
    /// (RFC 3339 with milliseconds), `name` (the full path) and `metadata` (the custom pairs).
    open func dictionaryRepresentation() -> [String: AnyHashable] {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let fields: [String: AnyHashable?] = [
            "bucket": bucket,
            "cacheControl": cacheControl,
            "contentDisposition": contentDisposition,
            "contentEncoding": contentEncoding,
            "contentLanguage": contentLanguage,
            "contentType": contentType,
            "md5Hash": md5Hash,
            "size": size != 0 ? size : nil,
            "generation": generation != 0 ? "\(generation)" : nil,
            "metageneration": metageneration != 0 ? "\(metageneration)" : nil,
            "timeCreated": timeCreated.map(formatter.string(from:)),
            "updated": updated.map(formatter.string(from:)),
            "name": path,
            "metadata": customMetadata,
        ]
        return fields.compactMapValues { $0 }
    }

    private static func date(_ millis: Int64) -> Date {
        Date(timeIntervalSince1970: Double(millis) / 1000)
    }
}

extension StorageMetadata: CustomStringConvertible {
    public var description: String { "StorageMetadata \(dictionaryRepresentation())" }
}
