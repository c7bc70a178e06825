/// A completion that runs on the transfer thread (internal) or the callback thread (public).
public typealias StorageCompletion<T> = @Sendable (Result<T, StorageError>) -> Void

// Every operation has one internal starter that completes on the transfer thread, and two public
// forms built from it by `Storage.runBlocking` and `Storage.runAsync`. Blocking forms therefore
// never wait for the callback thread, so they may be called from callbacks.
extension StorageReference {

    // MARK: Metadata

    public func getMetadata() throws(StorageError) -> StorageMetadata {
        try storage.runBlocking(startGetMetadata)
    }

    public func getMetadata(completion: @escaping StorageCompletion<StorageMetadata>) throws(StorageError) {
        try storage.runAsync(startGetMetadata, completion: completion)
    }

    func startGetMetadata(_ done: @escaping StorageCompletion<StorageMetadata>) throws(StorageError) {
        try startObjectRequest(method: "GET") { done($0.decoding(StorageMetadata.decode)) }
    }

    /// Sends only the fields set on `changes` and returns the updated metadata.
    public func updateMetadata(_ changes: StorageMetadata) throws(StorageError) -> StorageMetadata {
        try storage.runBlocking { done throws(StorageError) in try startUpdateMetadata(changes, done) }
    }

    public func updateMetadata(_ changes: StorageMetadata, completion: @escaping StorageCompletion<StorageMetadata>) throws(StorageError) {
        try storage.runAsync({ done throws(StorageError) in try startUpdateMetadata(changes, done) }, completion: completion)
    }

    /// Clearing custom metadata and then setting keys takes two PATCH requests (clear, then set).
    func startUpdateMetadata(_ changes: StorageMetadata, _ done: @escaping StorageCompletion<StorageMetadata>) throws(StorageError) {
        try changes.checkHeaderFields()
        try sendPatches(changes.updateJSONSteps()[...], done)
    }

    private func sendPatches(_ bodies: ArraySlice<[UInt8]>, _ done: @escaping StorageCompletion<StorageMetadata>) throws(StorageError) {
        let rest = bodies.dropFirst()
        try startObjectRequest(method: "PATCH", headers: [(name: "Content-Type", value: "application/json; charset=utf-8")],
                               body: BytesBody(bodies.first ?? Array("{}".utf8))) { [self] result in
            guard !rest.isEmpty, case .success = result else { return done(result.decoding(StorageMetadata.decode)) }
            do throws(StorageError) { try sendPatches(rest, done) } catch { done(.failure(error)) }
        }
    }

    // MARK: Delete

    public func delete() throws(StorageError) {
        try storage.runBlocking(startDelete)
    }

    public func delete(completion: @escaping StorageCompletion<Void>) throws(StorageError) {
        try storage.runAsync(startDelete, completion: completion)
    }

    func startDelete(_ done: @escaping StorageCompletion<Void>) throws(StorageError) {
        try startObjectRequest(method: "DELETE") { done($0.map { _ in () }) }
    }

    // MARK: Download URL

    /// `…/v0/b/<bucket>/o/<escaped path>?alt=media&token=<first download token>`.
    public func downloadURL() throws(StorageError) -> String {
        try storage.runBlocking(startDownloadURL)
    }

    public func downloadURL(completion: @escaping StorageCompletion<String>) throws(StorageError) {
        try storage.runAsync(startDownloadURL, completion: completion)
    }

    func startDownloadURL(_ done: @escaping StorageCompletion<String>) throws(StorageError) {
        let endpoint = storage.settings.endpoint
        let path = self.path
        try startGetMetadata { result in
            done(result.flatMap { metadata in
                guard let token = metadata.downloadTokens.first else {
                    return .failure(StorageError(code: .unknown,
                                                 message: "\(path.gsURL) has no download token, so it has no download URL"))
                }
                return .success(endpoint.downloadURL(path, token: token))
            })
        }
    }

    // MARK: Data

    /// The object's bytes; fails with `.downloadSizeExceeded` as soon as the object is known to be
    /// larger than `maxSize`, before its body is read. With an `allocator`, the bytes land in its
    /// memory (see `ByteBuffer.take`).
    public func getData(maxSize: Int64, allocator: MemoryAllocator? = nil) throws(StorageError) -> ByteBuffer {
        try storage.runBlocking { done throws(StorageError) in try startGetData(maxSize: maxSize, allocator: allocator, done) }
    }

    public func getData(maxSize: Int64, allocator: MemoryAllocator? = nil,
                        completion: @escaping StorageCompletion<ByteBuffer>) throws(StorageError) {
        try storage.runAsync({ done throws(StorageError) in try startGetData(maxSize: maxSize, allocator: allocator, done) },
                             completion: completion)
    }

    /// Streams the body into one buffer, sized from `Content-Length` when the server sends it.
    func startGetData(maxSize: Int64, allocator: MemoryAllocator?, _ done: @escaping StorageCompletion<ByteBuffer>) throws(StorageError) {
        guard maxSize >= 0 else { throw StorageError(code: .invalidArgument, message: "max_size must be >= 0") }
        let tooLarge = StorageError(code: .downloadSizeExceeded,
                                    message: "\(path.gsURL) is larger than the maximum size of \(maxSize) bytes")
        let outOfMemory = StorageError(code: .internalError, message: "Out of memory for the bytes of \(path.gsURL)")
        let settings = storage.settings
        let target = mediaTarget
        let buffer = ByteBuffer(allocator: allocator)
        try requireObject()
        try RetryingRequest(
            storage: storage, path: path, settings: settings, retryTime: settings.maxDownloadRetryTime,
            options: .init(authenticated: target.authenticated),
            hooks: .init(
                onResponseHead: { _, headers in
                    buffer.removeAll()   // a retry receives the whole body again
                    guard let length = headers.value("Content-Length").flatMap({ Int64($0) }) else { return nil }
                    if length > maxSize { return tooLarge }
                    return buffer.reserve(Int(length)) ? nil : outOfMemory
                },
                onBodyData: { bytes in
                    if Int64(buffer.count + bytes.count) > maxSize { return tooLarge }
                    return buffer.append(bytes) ? nil : outOfMemory
                }),
            build: { _, auth in
                var request = HTTPRequest(method: "GET", url: target.url, headers: auth)
                request.receivesObjectBytes = true
                return request
            },
            completion: { result in
                if case .failure = result { buffer.discard() }
                done(result.map { _ in buffer })
            }).start()
    }

    /// The bytes of `range` (fbstorage's own). A range that reaches past the end of the object
    /// fails with `.rangeNotSatisfiable`, never with fewer bytes; one larger than `maxSize` with
    /// `.downloadSizeExceeded` before its bytes are read.
    public func getData(range: ByteRange, maxSize: Int64) throws(StorageError) -> ByteBuffer {
        try storage.runBlocking { done throws(StorageError) in try startGetData(range: range, maxSize: maxSize, done) }
    }

    public func getData(range: ByteRange, maxSize: Int64, completion: @escaping StorageCompletion<ByteBuffer>) throws(StorageError) {
        try storage.runAsync({ done throws(StorageError) in try startGetData(range: range, maxSize: maxSize, done) },
                             completion: completion)
    }

    /// A download task into a buffer: its retries resume with `Range` rather than start over.
    func startGetData(range: ByteRange, maxSize: Int64, _ done: @escaping StorageCompletion<ByteBuffer>) throws(StorageError) {
        guard maxSize >= 0 else { throw StorageError(code: .invalidArgument, message: "max_size must be >= 0") }
        let sink = BufferSink(maxSize: maxSize, path: path)
        let task = try StorageDownloadTask(reference: self, range: range, sink: sink)
        task.onEnd { snapshot in done(snapshot.error.map { .failure($0) } ?? .success(sink.buffer)) }
        try task.start()
    }

    // MARK: List

    /// One page below this reference. `maxResults` 1...1000, or nil for the server's choice.
    public func list(maxResults: Int64?, pageToken: String?) throws(StorageError) -> StorageListResult {
        try storage.runBlocking { done throws(StorageError) in try startList(maxResults: maxResults, pageToken: pageToken, done) }
    }

    public func list(maxResults: Int64?, pageToken: String?, completion: @escaping StorageCompletion<StorageListResult>) throws(StorageError) {
        try storage.runAsync({ done throws(StorageError) in try startList(maxResults: maxResults, pageToken: pageToken, done) },
                             completion: completion)
    }

    func startList(maxResults: Int64?, pageToken: String?, _ done: @escaping StorageCompletion<StorageListResult>) throws(StorageError) {
        try Self.checkPageSize(maxResults)
        let settings = storage.settings
        let url = settings.endpoint.listURL(path, maxResults: maxResults.map { Int($0) }, pageToken: pageToken)
        let storage = self.storage
        let bucket = path.bucket
        try RetryingRequest(
            storage: storage, path: path, settings: settings, retryTime: settings.maxOperationRetryTime,
            build: { _, auth in HTTPRequest(method: "GET", url: url, headers: auth) },
            completion: { result in
                done(result.decoding(ListResponse.decode).map { StorageListResult(storage: storage, bucket: bucket, response: $0) })
            }).start()
    }

    /// Every page below this reference; each prefix appears once; `pageToken` is nil.
    public func listAll() throws(StorageError) -> StorageListResult {
        try storage.runBlocking(startListAll)
    }

    public func listAll(completion: @escaping StorageCompletion<StorageListResult>) throws(StorageError) {
        try storage.runAsync(startListAll, completion: completion)
    }

    func startListAll(_ done: @escaping StorageCompletion<StorageListResult>) throws(StorageError) {
        try ListAllOperation(reference: self, completion: done).start()
    }

    // MARK: Shared

    /// A page holds 1 to 1000 items (nil: the server's choice).
    static func checkPageSize(_ maxResults: Int64?) throws(StorageError) {
        if let maxResults, !(1...1000).contains(maxResults) {
            throw StorageError(code: .invalidArgument, message: "Argument 'maxResults' must be between 1 and 1000 inclusive.")
        }
    }

    /// Object operations need an object: the root is the bucket itself.
    func requireObject() throws(StorageError) {
        guard !path.isRoot else {
            throw StorageError(code: .pathError, message: "This operation needs an object path, not the bucket root")
        }
    }

    /// Starts one retried request on this object's URL (with `query`, escaped) with the
    /// operation deadline.
    func startObjectRequest(method: String, query: String = "", headers: [(name: String, value: String)] = [],
                            body: BytesBody? = nil,
                            _ done: @escaping StorageCompletion<HTTPResponse>) throws(StorageError) {
        try requireObject()
        let settings = storage.settings
        let url = settings.endpoint.objectURL(path) + query
        try RetryingRequest(
            storage: storage, path: path, settings: settings, retryTime: settings.maxOperationRetryTime,
            build: { _, auth in HTTPRequest(method: method, url: url, headers: headers + auth, body: body) },
            completion: done).start()
    }
}
