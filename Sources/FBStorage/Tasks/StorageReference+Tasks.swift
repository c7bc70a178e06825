extension StorageReference {
    /// Uploads a copy of `bytes`. The task starts at once, after `prepare` ran on it (see
    /// `startTask`).
    public func putData(_ bytes: [UInt8], metadata: StorageMetadata? = nil,
                        prepare: (StorageUploadTask) -> Void = { _ in }) throws(StorageError) -> StorageUploadTask {
        try startTask(StorageUploadTask(reference: self, source: FixedUploadSource(bytes: bytes), metadata: metadata), prepare)
    }

    /// Uploads the regular file at `localPath`, streamed from disk. Without a content type in
    /// `metadata`, it is inferred from the file's extension. `prepare` as for `putData`.
    public func putFile(_ localPath: String, metadata: StorageMetadata? = nil,
                        prepare: (StorageUploadTask) -> Void = { _ in }) throws(StorageError) -> StorageUploadTask {
        try startTask(StorageUploadTask(reference: self, source: FixedUploadSource(filePath: localPath), metadata: metadata), prepare)
    }

    /// Continues a persisted resumable session (from `StorageUploadTask.uploadSession`), possibly
    /// in another process, from the offset the server reports.
    public func putFile(_ localPath: String, resuming session: UploadSession,
                        metadata: StorageMetadata? = nil) throws(StorageError) -> StorageUploadTask {
        try startTask(StorageUploadTask(reference: self, source: FixedUploadSource(filePath: localPath),
                                        metadata: metadata, resumeFrom: session))
    }

    /// Uploads what `read` returns until it reports the end (0), in constant memory: a
    /// resumable session without a size, one chunk (a multiple of 256 KiB, at most 8 MiB) read
    /// ahead on the transfer thread (fbstorage's own). A stream that ends within 256 KiB goes in
    /// one request. `read` fills its buffer and returns the count, 0 at the end, or the error that
    /// fails the upload (its session is cancelled: nothing is stored).
    public func putStream(metadata: StorageMetadata? = nil,
                          read: @escaping StreamRead) throws(StorageError) -> StorageUploadTask {
        try startTask(StorageUploadTask(reference: self, source: StreamUploadSource(read: read), metadata: metadata))
    }

    /// Uploads what the open file descriptor `fd` (a pipe, a socket, stdin; left open) holds up
    /// to its end, as `putStream`.
    public func putDescriptor(_ fd: Int32, metadata: StorageMetadata? = nil) throws(StorageError) -> StorageUploadTask {
        try startTask(StorageUploadTask(reference: self, source: StreamUploadSource(descriptor: fd), metadata: metadata))
    }

    /// Downloads the object to `localPath` (via a temporary file renamed on success). `prepare` as
    /// for `putData`.
    public func write(toFile localPath: String,
                      prepare: (StorageDownloadTask) -> Void = { _ in }) throws(StorageError) -> StorageDownloadTask {
        try startTask(StorageDownloadTask(reference: self, sink: FileSink(destination: localPath)), prepare)
    }

    /// Streams the object, or `range` of it, to `sink` on the transfer thread, each byte once
    /// and in order (fbstorage's own). `sink` returns nil to go on, or the error that ends the
    /// task. It must return promptly: other transfers of the storage wait meanwhile.
    public func stream(range: ByteRange? = nil,
                       to sink: @escaping (UnsafeRawBufferPointer) -> StorageError?) throws(StorageError) -> StorageDownloadTask {
        try startTask(StorageDownloadTask(reference: self, range: range, sink: CallbackSink(sink)))
    }

    /// Downloads `range` (nil: the whole object) into `buffer`, which must stay valid until the
    /// task ended; a range larger than `capacity` fails with `.downloadSizeExceeded`.
    public func read(range: ByteRange?, into buffer: UnsafeMutableRawPointer?, capacity: Int) throws(StorageError) -> StorageDownloadTask {
        try startTask(StorageDownloadTask(reference: self, range: range, sink: MemorySink(base: buffer, capacity: capacity)))
    }

    /// Writes the object to the open file descriptor `fd` (a pipe, a socket, a file at its
    /// offset), which the caller keeps and closes. Unlike `write(toFile:)` a failure leaves the
    /// bytes written so far.
    public func write(toDescriptor fd: Int32) throws(StorageError) -> StorageDownloadTask {
        try startTask(StorageDownloadTask(reference: self, sink: DescriptorSink(fd: fd)))
    }

    /// Starts `task` after `prepare` ran on it: observers added there see every event of the
    /// task, even of one that ends before the call returns (a layer's completion handler, the
    /// progress of an async form).
    private func startTask<Task: StorageTask>(_ task: Task, _ prepare: (Task) -> Void = { _ in }) throws(StorageError) -> Task {
        prepare(task)
        try task.start()
        return task
    }
}
