/// The state of a task at one event. Immutable.
public final class StorageTaskSnapshot: Sendable {
    public let status: StorageTaskStatus
    public let bytesTransferred: Int64
    /// -1 while unknown (a download before its response).
    public let totalBytes: Int64
    /// Set when `status` is `.failure`.
    public let error: StorageError?
    /// Uploads: the object's metadata after success.
    public let metadata: StorageMetadata?
    public let reference: StorageReference

    init(status: StorageTaskStatus, bytesTransferred: Int64, totalBytes: Int64, error: StorageError? = nil,
         metadata: StorageMetadata? = nil, reference: StorageReference) {
        self.status = status
        self.bytesTransferred = bytesTransferred
        self.totalBytes = totalBytes
        self.error = error
        self.metadata = metadata
        self.reference = reference
    }

    /// The same state reported under another status.
    func with(status: StorageTaskStatus) -> StorageTaskSnapshot {
        StorageTaskSnapshot(status: status, bytesTransferred: bytesTransferred, totalBytes: totalBytes,
                            error: error, metadata: metadata, reference: reference)
    }
}
