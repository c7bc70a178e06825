// What admin access does through the GCS JSON API (`/storage/v1`), on the same bucket: listing
// pages with each item's metadata (one request per page, not one per object), and server-side
// copies (`rewriteTo`, looping on `rewriteToken` until done: no object bytes pass through the
// client). Production sends these to storage.googleapis.com, an emulator serves them itself.
extension StorageReference {

    // MARK: List with metadata

    /// One page below this reference, with each item's metadata (`StorageListResult.itemMetadata`).
    /// `maxResults` 1...1000, or nil for the server's choice.
    public func listWithMetadata(maxResults: Int64?, pageToken: String?) throws(StorageError) -> StorageListResult {
        try storage.runBlocking { done throws(StorageError) in try startListWithMetadata(maxResults: maxResults, pageToken: pageToken, done) }
    }

    public func listWithMetadata(maxResults: Int64?, pageToken: String?,
                                 completion: @escaping StorageCompletion<StorageListResult>) throws(StorageError) {
        try storage.runAsync({ done throws(StorageError) in try startListWithMetadata(maxResults: maxResults, pageToken: pageToken, done) },
                             completion: completion)
    }

    func startListWithMetadata(maxResults: Int64?, pageToken: String?,
                               _ done: @escaping StorageCompletion<StorageListResult>) throws(StorageError) {
        try Self.checkPageSize(maxResults)
        var settings = storage.settings
        let api = GCSEndpoint(settings.endpoint)
        settings.endpoint = api.endpoint
        let url = api.listURL(path, maxResults: maxResults, pageToken: pageToken)
        let storage = self.storage
        let bucket = path.bucket
        try RetryingRequest(
            storage: storage, path: path, settings: settings, retryTime: settings.maxOperationRetryTime,
            build: { _, auth in HTTPRequest(method: "GET", url: url, headers: auth) },
            completion: { result in
                done(result.decoding(ListResponse.decodeWithMetadata).map { page in
                    var list = StorageListResult(storage: storage, bucket: bucket, response: page.response)
                    // As the items: names a reference cannot hold are left out.
                    list.itemMetadata = page.metadata.filter { (try? StoragePath(bucket: bucket, object: $0.fullPath ?? "")) != nil }
                    return list
                })
            }).start()
    }

    // MARK: Server-side copy

    /// Copies this object to `destination` on the server and returns the new object's metadata.
    public func copy(to destination: StorageReference) throws(StorageError) -> StorageMetadata {
        try storage.runBlocking { done throws(StorageError) in try startCopy(to: destination, done) }
    }

    public func copy(to destination: StorageReference, completion: @escaping StorageCompletion<StorageMetadata>) throws(StorageError) {
        try storage.runAsync({ done throws(StorageError) in try startCopy(to: destination, done) }, completion: completion)
    }

    func startCopy(to destination: StorageReference, _ done: @escaping StorageCompletion<StorageMetadata>) throws(StorageError) {
        try requireObject()
        try destination.requireObject()
        try rewriteStep(to: destination, token: nil, done)
    }

    /// One `rewriteTo` call; the next one goes with its `rewriteToken` until `done`.
    private func rewriteStep(to destination: StorageReference, token: String?,
                             _ done: @escaping StorageCompletion<StorageMetadata>) throws(StorageError) {
        var settings = storage.settings
        let api = GCSEndpoint(settings.endpoint)
        settings.endpoint = api.endpoint
        let url = api.rewriteURL(from: path, to: destination.path, token: token)
        try RetryingRequest(
            storage: storage, path: path, settings: settings, retryTime: settings.maxOperationRetryTime,
            build: { _, auth in
                HTTPRequest(method: "POST", url: url, headers: auth + [(name: "Content-Type", value: "application/json")],
                            body: BytesBody(Array("{}".utf8)))
            },
            completion: { [self] result in
                let step = result.flatMap { response -> Result<(String?, StorageMetadata?), StorageError> in
                    guard let answer = JSONValue.parse(response.body) else {
                        return .failure(StorageError(code: .unknown, message: "The rewrite answer is not JSON",
                                                     serverResponse: StorageError.serverResponse(response.body)))
                    }
                    if answer["done"] == .bool(true), let resource = answer["resource"] {
                        do throws(StorageError) {
                            return .success((nil, try StorageMetadata.decode(json: resource.serialized())))
                        } catch {
                            return .failure(error)
                        }
                    }
                    guard let next = answer["rewriteToken"]?.stringValue, !next.isEmpty else {
                        return .failure(StorageError(code: .unknown, message: "The rewrite is not done and gave no rewriteToken"))
                    }
                    return .success((next, nil))
                }
                switch step {
                case .failure(let error): done(.failure(error))
                case .success((_, let metadata?)): done(.success(metadata))
                case .success((let next, nil)):
                    do throws(StorageError) { try rewriteStep(to: destination, token: next, done) } catch { done(.failure(error)) }
                }
            }).start()
    }
}

/// The GCS JSON API beside a Firebase endpoint: storage.googleapis.com for production, the same
/// origin for an emulator (which serves both APIs).
struct GCSEndpoint {
    let endpoint: Endpoint

    init(_ firebase: Endpoint) {
        endpoint = firebase == .production ? Endpoint(scheme: "https", host: "storage.googleapis.com", port: 443) : firebase
    }

    private func objectsURL(_ bucket: String) -> String {
        "\(endpoint.origin)/storage/v1/b/\(PercentEscaping.objectName(bucket))/o"
    }

    /// `…/o?delimiter=/&prefix=<path>/[&maxResults][&pageToken]`, the root without a prefix.
    func listURL(_ path: StoragePath, maxResults: Int64?, pageToken: String?) -> String {
        var query = ["delimiter=" + PercentEscaping.queryValue("/")]
        if !path.isRoot { query.append("prefix=" + PercentEscaping.queryValue(path.object + "/")) }
        if let maxResults { query.append("maxResults=\(maxResults)") }
        if let pageToken { query.append("pageToken=" + PercentEscaping.queryValue(pageToken)) }
        return objectsURL(path.bucket) + "?" + query.joined(separator: "&")
    }

    func rewriteURL(from source: StoragePath, to destination: StoragePath, token: String?) -> String {
        objectsURL(source.bucket) + "/" + PercentEscaping.objectName(source.object) + "/rewriteTo/b/"
            + PercentEscaping.objectName(destination.bucket) + "/o/" + PercentEscaping.objectName(destination.object)
            + (token.map { "?rewriteToken=" + PercentEscaping.queryValue($0) } ?? "")
    }
}

extension ListResponse {
    /// A GCS list page: its items are whole object resources.
    static func decodeWithMetadata(json: [UInt8]) throws(StorageError) -> (response: ListResponse, metadata: [StorageMetadata]) {
        let response = try decode(json: json)
        var metadata: [StorageMetadata] = []
        for item in JSONValue.parse(json)?["items"]?.arrayValue ?? [] where item["name"]?.stringValue != nil {
            metadata.append(try StorageMetadata.decode(json: item.serialized()))
        }
        return (response, metadata)
    }
}
