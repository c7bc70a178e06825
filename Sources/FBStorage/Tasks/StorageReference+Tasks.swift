extension StorageReference {
    /// Uploads a copy of `bytes`. The task starts at once.
    public func putData(_ bytes: [UInt8], metadata: StorageMetadata? = nil) throws(StorageError) -> StorageUploadTask {
        try startTask(StorageUploadTask(reference: self, source: UploadSource(bytes: bytes), metadata: metadata))
    }

    /// Uploads the regular file at `localPath`, streamed from disk. Without a content type in
    /// `metadata`, it is inferred from the file's extension.
    public func putFile(_ localPath: String, metadata: StorageMetadata? = nil) throws(StorageError) -> StorageUploadTask {
        try startTask(StorageUploadTask(reference: self, source: UploadSource(filePath: localPath), metadata: metadata))
    }

    /// Continues a persisted resumable session (from `StorageUploadTask.uploadSession`), possibly
    /// in another process, from the offset the server reports.
    public func putFile(_ localPath: String, resuming session: UploadSession,
                        metadata: StorageMetadata? = nil) throws(StorageError) -> StorageUploadTask {
        try startTask(StorageUploadTask(reference: self, source: UploadSource(filePath: localPath),
                                        metadata: metadata, resumeFrom: session))
    }

    /// Downloads the object to `localPath` (via a temporary file renamed on success).
    public func write(toFile localPath: String) throws(StorageError) -> StorageDownloadTask {
        try startTask(StorageDownloadTask(reference: self, destination: localPath))
    }

    private func startTask<Task: StorageTask>(_ task: Task) throws(StorageError) -> Task {
        try task.start()
        return task
    }
}
