import Foundation

// The Apple SDK's `Result` forms: the same operations, with `StorageError` failures.
public extension StorageReference {
    /// Fetches a long-lived download URL.
    func downloadURL(completion: @escaping (Result<URL, Error>) -> Void) {
        startDownloadURL { completion($0.mapError { $0 }) }
    }

    /// Downloads the object into memory (at most `maxSize` bytes).
    @discardableResult
    func getData(maxSize: Int64, completion: @escaping (Result<Data, Error>) -> Void) -> StorageDownloadTask {
        StorageDownloadTask.inMemory(reference: self, maxSize: maxSize) { completion($0.mapError { $0 }) }
    }

    /// Fetches the object's metadata.
    func getMetadata(completion: @escaping (Result<StorageMetadata, Error>) -> Void) {
        startGetMetadata { completion($0.mapError { $0 }) }
    }

    /// The page after `pageToken` of at most `maxResults` items and prefixes.
    func list(maxResults: Int64, pageToken: String, completion: @escaping (Result<StorageListResult, Error>) -> Void) {
        startList(maxResults: maxResults, pageToken: pageToken) { completion($0.mapError { $0 }) }
    }

    /// The first page of at most `maxResults` items and prefixes.
    func list(maxResults: Int64, completion: @escaping (Result<StorageListResult, Error>) -> Void) {
        startList(maxResults: maxResults, pageToken: nil) { completion($0.mapError { $0 }) }
    }

    /// Every item and prefix below this reference.
    func listAll(completion: @escaping (Result<StorageListResult, Error>) -> Void) {
        startListAll { completion($0.mapError { $0 }) }
    }

    /// Uploads `uploadData`.
    @discardableResult
    func putData(_ uploadData: Data, metadata: StorageMetadata? = nil,
                 completion: @escaping (Result<StorageMetadata, Error>) -> Void) -> StorageUploadTask {
        startPutData(uploadData, metadata: metadata) { completion($0.mapError { $0 }) }
    }

    /// Uploads the file at `from`.
    @discardableResult
    func putFile(from: URL, metadata: StorageMetadata? = nil,
                 completion: @escaping (Result<StorageMetadata, Error>) -> Void) -> StorageUploadTask {
        startPutFile(from: from, metadata: metadata) { completion($0.mapError { $0 }) }
    }

    /// Updates the object's metadata.
    func updateMetadata(_ metadata: StorageMetadata, completion: @escaping (Result<StorageMetadata, Error>) -> Void) {
        startUpdateMetadata(metadata) { completion($0.mapError { $0 }) }
    }

    /// Downloads the object to `toFile`.
    @discardableResult
    func write(toFile: URL, completion: @escaping (Result<URL, Error>) -> Void) -> StorageDownloadTask {
        startWrite(toFile: toFile) { completion($0.mapError { $0 }) }
    }
}
