import FBStorage
import Foundation

/// A reference to an object (or a "folder") in a bucket, with the Apple SDK's operations.
/// Completion handlers and observers run on `storage.callbackQueue`.
open class StorageReference {
    /// The storage this reference belongs to.
    public let storage: Storage
    let core: FBStorage.StorageReference

    init(storage: Storage, core: FBStorage.StorageReference) {
        self.storage = storage
        self.core = core
    }

    /// The bucket, `bucket` in `gs://bucket/path/to/object.txt`.
    public var bucket: String { core.bucket }
    /// The path below the bucket, `path/to/object.txt`; "" at the root.
    public var fullPath: String { core.fullPath }
    /// The last path component, `object.txt`; "" at the root.
    public var name: String { core.name }

    /// The root of the bucket.
    open func root() -> StorageReference {
        StorageReference(storage: storage, core: core.root)
    }

    /// The parent reference; nil at the root.
    open func parent() -> StorageReference? {
        core.parent.map { StorageReference(storage: storage, core: $0) }
    }

    /// The reference to `path` below this one; slashes are normalised (`/a//b/` is `a/b`).
    /// A path Cloud Storage refuses (over 1024 bytes, CR or LF) stops the program.
    open func child(_ path: String) -> StorageReference {
        do {
            return StorageReference(storage: storage, core: try core.child(path))
        } catch {
            fatalError(error.message)
        }
    }

    // MARK: Uploads

    /// Uploads `uploadData`; the task starts at once.
    @discardableResult
    open func putData(_ uploadData: Data, metadata: StorageMetadata? = nil) -> StorageUploadTask {
        putData(uploadData, metadata: metadata, completion: nil)
    }

    /// Uploads `uploadData`, then calls `completion` with the object's metadata or an error.
    @discardableResult
    open func putData(_ uploadData: Data, metadata: StorageMetadata? = nil,
                      completion: ((_: StorageMetadata?, _: Error?) -> Void)?) -> StorageUploadTask {
        startPutData(uploadData, metadata: metadata, completion.map(Self.pair))
    }

    func startPutData(_ uploadData: Data, metadata: StorageMetadata?, onProgress: ((Progress?) -> Void)? = nil,
                      _ done: ((Result<StorageMetadata, StorageError>) -> Void)?) -> StorageUploadTask {
        let bytes = [UInt8](uploadData)
        return StorageUploadTask(reference: self, hooks: hooks(done, onProgress, Self.uploadedMetadata)) {
            [core] (prepare) throws(FBStorage.StorageError) in
            try core.putData(bytes, metadata: metadata?.core, prepare: prepare)
        }
    }

    /// Uploads the file at `fileURL`, streamed from disk; the task starts at once.
    @discardableResult
    open func putFile(from fileURL: URL, metadata: StorageMetadata? = nil) -> StorageUploadTask {
        putFile(from: fileURL, metadata: metadata, completion: nil)
    }

    /// Uploads the file at `fileURL`, then calls `completion` with the object's metadata or an
    /// error. Without a content type in `metadata`, it is inferred from the file's extension.
    @discardableResult
    open func putFile(from fileURL: URL, metadata: StorageMetadata? = nil,
                      completion: ((_: StorageMetadata?, _: Error?) -> Void)?) -> StorageUploadTask {
        startPutFile(from: fileURL, metadata: metadata, completion.map(Self.pair))
    }

    func startPutFile(from fileURL: URL, metadata: StorageMetadata?, onProgress: ((Progress?) -> Void)? = nil,
                      _ done: ((Result<StorageMetadata, StorageError>) -> Void)?) -> StorageUploadTask {
        StorageUploadTask(reference: self, hooks: hooks(done, onProgress, Self.uploadedMetadata)) {
            [core] (prepare) throws(FBStorage.StorageError) in
            do throws(FBStorage.StorageError) {
                return try core.putFile(fileURL.path, metadata: metadata?.core, prepare: prepare)
            } catch where error.code == .unknown {   // the file is missing or unreadable
                throw FBStorage.StorageError(code: .unknown, message: "File at URL: \(fileURL.absoluteString) is not reachable. "
                                             + "Ensure file URL is not a directory, symbolic link, or invalid url.")
            }
        }
    }

    /// The metadata the server returned for a finished upload.
    private static func uploadedMetadata(_ snapshot: FBStorage.StorageTaskSnapshot) -> Result<StorageMetadata, StorageError> {
        .success(StorageMetadata(core: snapshot.metadata ?? FBStorage.StorageMetadata()))
    }

    // MARK: Downloads

    /// Downloads the object into memory. Fails with `downloadSizeExceeded` (and cancels the
    /// download) once the object is known to be larger than `maxSize` bytes.
    @discardableResult
    open func getData(maxSize: Int64, completion: @escaping ((_: Data?, _: Error?) -> Void)) -> StorageDownloadTask {
        StorageDownloadTask.inMemory(reference: self, maxSize: maxSize, completion: Self.pair(completion))
    }

    /// Downloads the object to `fileURL` (replaced only once the download succeeded).
    @discardableResult
    open func write(toFile fileURL: URL) -> StorageDownloadTask {
        write(toFile: fileURL, completion: nil)
    }

    /// Downloads the object to `fileURL`, then calls `completion` with `fileURL` or an error.
    @discardableResult
    open func write(toFile fileURL: URL, completion: ((_: URL?, _: Error?) -> Void)?) -> StorageDownloadTask {
        startWrite(toFile: fileURL, completion.map(Self.pair))
    }

    func startWrite(toFile fileURL: URL, onProgress: ((Progress?) -> Void)? = nil,
                    _ done: ((Result<URL, StorageError>) -> Void)?) -> StorageDownloadTask {
        StorageDownloadTask(reference: self, failure: TaskFailure(reference: self),
                            hooks: hooks(done, onProgress) { _ in .success(fileURL) }) {
            [core] (prepare) throws(FBStorage.StorageError) in
            try core.write(toFile: fileURL.path, prepare: prepare)
        }
    }

    /// The hooks of a task whose completion is `done` (with `success` of the final snapshot) and
    /// whose async form reports to `onProgress`.
    private func hooks<U>(_ done: ((Result<U, StorageError>) -> Void)?, _ onProgress: ((Progress?) -> Void)?,
                          _ success: @escaping (FBStorage.StorageTaskSnapshot) -> Result<U, StorageError>) -> TaskHooks {
        let queue = { [storage] in storage.callbackQueue }
        return TaskHooks(completion: done, on: queue, success).reportingProgress(onProgress, on: queue)
    }

    /// Fetches a long-lived download URL (with the object's first download token).
    open func downloadURL(completion: @escaping ((_: URL?, _: Error?) -> Void)) {
        startDownloadURL(Self.pair(completion))
    }

    func startDownloadURL(_ done: @escaping (Result<URL, StorageError>) -> Void) {
        // The core percent-escapes every part of the URL, so it always parses.
        run({ [core] done throws(FBStorage.StorageError) in try core.downloadURL(completion: done) },
            { URL(string: $0)! }, done)
    }

    // MARK: Listing

    /// Every item and prefix below this reference, following every page.
    open func listAll(completion: @escaping ((_: StorageListResult?, _: Error?) -> Void)) {
        startListAll(Self.pair(completion))
    }

    func startListAll(_ done: @escaping (Result<StorageListResult, StorageError>) -> Void) {
        run({ [core] done throws(FBStorage.StorageError) in try core.listAll(completion: done) },
            { [storage] in StorageListResult(storage: storage, core: $0) }, done)
    }

    /// The first page of at most `maxResults` (1...1000) items and prefixes below this reference.
    open func list(maxResults: Int64, completion: @escaping ((_: StorageListResult?, _: Error?) -> Void)) {
        startList(maxResults: maxResults, pageToken: nil, Self.pair(completion))
    }

    /// The page after `pageToken` of at most `maxResults` (1...1000) items and prefixes.
    open func list(maxResults: Int64, pageToken: String,
                   completion: @escaping ((_: StorageListResult?, _: Error?) -> Void)) {
        startList(maxResults: maxResults, pageToken: pageToken, Self.pair(completion))
    }

    func startList(maxResults: Int64, pageToken: String?, _ done: @escaping (Result<StorageListResult, StorageError>) -> Void) {
        run({ [core] done throws(FBStorage.StorageError) in
                try core.list(maxResults: maxResults, pageToken: pageToken, completion: done) },
            { [storage] in StorageListResult(storage: storage, core: $0) }, done)
    }

    // MARK: Metadata

    /// Fetches the object's metadata.
    open func getMetadata(completion: @escaping ((_: StorageMetadata?, _: Error?) -> Void)) {
        startGetMetadata(Self.pair(completion))
    }

    func startGetMetadata(_ done: @escaping (Result<StorageMetadata, StorageError>) -> Void) {
        run({ [core] done throws(FBStorage.StorageError) in try core.getMetadata(completion: done) },
            StorageMetadata.init(core:), done)
    }

    /// Sends the properties assigned on `metadata` (nil deletes a field) and returns the
    /// object's updated metadata.
    open func updateMetadata(_ metadata: StorageMetadata, completion: ((_: StorageMetadata?, _: Error?) -> Void)?) {
        startUpdateMetadata(metadata, completion.map(Self.pair) ?? { _ in })
    }

    func startUpdateMetadata(_ metadata: StorageMetadata, _ done: @escaping (Result<StorageMetadata, StorageError>) -> Void) {
        let changes = metadata.core
        run({ [core] done throws(FBStorage.StorageError) in try core.updateMetadata(changes, completion: done) },
            StorageMetadata.init(core:), done)
    }

    // MARK: Delete

    /// Deletes the object.
    open func delete(completion: ((_: Error?) -> Void)?) {
        startDelete { result in
            if case .failure(let error) = result { completion?(error.nsError) } else { completion?(nil) }
        }
    }

    func startDelete(_ done: @escaping (Result<Void, StorageError>) -> Void) {
        run({ [core] done throws(FBStorage.StorageError) in try core.delete(completion: done) }, { $0 }, done)
    }

    // MARK: Delivery

    /// Starts a core operation and hands its converted result to `done` on the callback queue.
    /// An operation the core refuses to start fails the same way, never synchronously.
    func run<T, U>(_ start: (@escaping StorageCompletion<T>) throws(FBStorage.StorageError) -> Void,
                   _ convert: @escaping (T) -> U, _ done: @escaping (Result<U, StorageError>) -> Void) {
        do {
            try start { [self] result in
                let converted = result.map(convert).mapError(error(from:))
                storage.callbackQueue.async { done(converted) }
            }
        } catch {
            let failure = self.error(from: error)
            storage.callbackQueue.async { done(.failure(failure)) }
        }
    }

    /// The Apple SDK's error for a core error on this reference.
    func error(from error: FBStorage.StorageError) -> StorageError {
        StorageError(error, bucket: bucket, object: fullPath)
    }

    /// A `(value, error)` completion as a `Result` one; the error is a real `NSError`.
    static func pair<U>(_ completion: @escaping (U?, Error?) -> Void) -> (Result<U, StorageError>) -> Void {
        { result in
            switch result {
            case .success(let value): completion(value, nil)
            case .failure(let error): completion(nil, error.nsError)
            }
        }
    }
}

extension StorageReference: Equatable, Hashable, CustomStringConvertible {
    public static func == (lhs: StorageReference, rhs: StorageReference) -> Bool {
        lhs.storage === rhs.storage && lhs.core == rhs.core
    }

    public func hash(into hasher: inout Hasher) { hasher.combine(core) }

    /// `gs://bucket/path`.
    public var description: String { core.description }
}
