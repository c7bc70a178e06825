import Foundation

// The Apple SDK's async forms; they throw `StorageError`.
public extension StorageReference {
    /// Downloads the object into memory (at most `maxSize` bytes).
    func data(maxSize: Int64) async throws -> Data {
        try await awaiting { _ = StorageDownloadTask.inMemory(reference: self, maxSize: maxSize, completion: $0) }
    }

    /// Uploads `uploadData`; `onProgress` receives each progress event's `Progress`.
    func putDataAsync(_ uploadData: Data, metadata: StorageMetadata? = nil,
                      onProgress: ((Progress?) -> Void)? = nil) async throws -> StorageMetadata {
        try await awaiting { _ = startPutData(uploadData, metadata: metadata, onProgress: onProgress, $0) }
    }

    /// Uploads the file at `url`; `onProgress` receives each progress event's `Progress`.
    func putFileAsync(from url: URL, metadata: StorageMetadata? = nil,
                      onProgress: ((Progress?) -> Void)? = nil) async throws -> StorageMetadata {
        try await awaiting { _ = startPutFile(from: url, metadata: metadata, onProgress: onProgress, $0) }
    }

    /// Downloads the object to `fileURL` and returns it.
    func writeAsync(toFile fileURL: URL, onProgress: ((Progress?) -> Void)? = nil) async throws -> URL {
        try await awaiting { _ = startWrite(toFile: fileURL, onProgress: onProgress, $0) }
    }

    /// Fetches a long-lived download URL.
    func downloadURL() async throws -> URL {
        try await awaiting(startDownloadURL)
    }

    /// Every item and prefix below this reference.
    func listAll() async throws -> StorageListResult {
        try await awaiting(startListAll)
    }

    /// The first page of at most `maxResults` (1...1000) items and prefixes.
    func list(maxResults: Int64) async throws -> StorageListResult {
        try await awaiting { startList(maxResults: maxResults, pageToken: nil, $0) }
    }

    /// The page after `pageToken` of at most `maxResults` (1...1000) items and prefixes.
    func list(maxResults: Int64, pageToken: String) async throws -> StorageListResult {
        try await awaiting { startList(maxResults: maxResults, pageToken: pageToken, $0) }
    }

    /// Fetches the object's metadata.
    func getMetadata() async throws -> StorageMetadata {
        try await awaiting(startGetMetadata)
    }

    /// Sends the properties assigned on `metadata` and returns the updated metadata.
    func updateMetadata(_ metadata: StorageMetadata) async throws -> StorageMetadata {
        try await awaiting { startUpdateMetadata(metadata, $0) }
    }

    /// Deletes the object.
    func delete() async throws {
        try await awaiting(startDelete)
    }
}

extension StorageReference {
    /// Suspends until the operation `start` begins calls its completion.
    func awaiting<T>(_ start: (@escaping (Result<T, StorageError>) -> Void) -> Void) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            start { continuation.resume(with: $0) }
        }
    }
}
