/// Follows `nextPageToken` until the last page, keeping each prefix once (the official emulator
/// repeats every prefix on every page).
final class ListAllOperation: @unchecked Sendable {
    private let reference: StorageReference
    private let completion: StorageCompletion<StorageListResult>
    private var items: [StorageReference] = []
    private var prefixes: [StorageReference] = []
    private var seenPrefixes: Set<StoragePath> = []

    init(reference: StorageReference, completion: @escaping StorageCompletion<StorageListResult>) {
        self.reference = reference
        self.completion = completion
    }

    func start() throws(StorageError) {
        try reference.startList(maxResults: nil, pageToken: nil, received)
    }

    private func received(_ result: Result<StorageListResult, StorageError>) {
        switch result {
        case .failure(let error):
            completion(.failure(error))
        case .success(let page):
            items.append(contentsOf: page.items)
            for prefix in page.prefixes where seenPrefixes.insert(prefix.path).inserted {
                prefixes.append(prefix)
            }
            guard let token = page.pageToken else {
                completion(.success(StorageListResult(items: items, prefixes: prefixes, pageToken: nil)))
                return
            }
            do {
                try reference.startList(maxResults: nil, pageToken: token, received)
            } catch {
                completion(.failure(error))
            }
        }
    }
}

extension Result where Success == HTTPResponse, Failure == StorageError {
    /// Decodes the response body, keeping the transfer error if there was one.
    func decoding<T>(_ decode: ([UInt8]) throws(StorageError) -> T) -> Result<T, StorageError> {
        flatMap { response in
            do throws(StorageError) { return .success(try decode(response.body)) } catch { return .failure(error) }
        }
    }
}
