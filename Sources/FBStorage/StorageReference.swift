/// A bucket and an object path in it, with the operations on that object.
///
/// References are values: two references to the same bucket and path are equal whatever the
/// `Storage` instance they came from.
public struct StorageReference: Sendable, Hashable, CustomStringConvertible {
    public let storage: Storage
    public let path: StoragePath
    /// The `token=` of the download URL this reference was made from: its downloads send the
    /// token instead of the storage's auth. References derived from it have none.
    public let downloadToken: String?

    init(storage: Storage, path: StoragePath, downloadToken: String? = nil) {
        self.storage = storage
        self.path = path
        self.downloadToken = downloadToken
    }

    /// Where the object's bytes are read: with the download token when there is one (the URL
    /// is the credential), else with the storage's auth.
    var mediaTarget: (url: String, authenticated: Bool) {
        let endpoint = storage.settings.endpoint
        if let downloadToken { return (endpoint.downloadURL(path, token: downloadToken), false) }
        return (endpoint.mediaURL(path), true)
    }

    public var bucket: String { path.bucket }
    /// The object path; "" at the root.
    public var fullPath: String { path.object }
    /// The last path component; "" at the root.
    public var name: String { path.name }
    /// `gs://bucket/path`.
    public var description: String { path.gsURL }

    public func child(_ relativePath: String) throws(StorageError) -> StorageReference {
        StorageReference(storage: storage, path: try path.child(relativePath))
    }

    /// nil at the root.
    public var parent: StorageReference? { path.parent.map { StorageReference(storage: storage, path: $0) } }

    public var root: StorageReference { StorageReference(storage: storage, path: path.root) }

    public static func == (lhs: StorageReference, rhs: StorageReference) -> Bool { lhs.path == rhs.path }
    public func hash(into hasher: inout Hasher) { hasher.combine(path) }
}
