import FBStorage
import Foundation

/// A download started by `write(toFile:)` or `getData(maxSize:)`.
open class StorageDownloadTask: StorageObservableTask, StorageTaskManagement {
    private let lock = NSLock()
    /// Set when getData cancelled the download for exceeding its maximum size.
    private var sizeExceeded: StorageError?

    init(reference: StorageReference, start: () throws(FBStorage.StorageError) -> FBStorage.StorageDownloadTask) {
        super.init(reference: reference) { () throws(FBStorage.StorageError) in try start() }
    }

    override func failure(from error: FBStorage.StorageError) -> StorageError {
        lock.withLock { sizeExceeded } ?? super.failure(from: error)
    }

    /// getData: the core downloads to a temporary file (so pause, resume, retries and progress
    /// work as for files), read into memory and removed at the end.
    static func inMemory(reference: StorageReference, maxSize: Int64,
                         completion: @escaping (Result<Data, StorageError>) -> Void) -> StorageDownloadTask {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("fbstorage-data-\(UUID().uuidString)").path
        let task = StorageDownloadTask(reference: reference) { () throws(FBStorage.StorageError) in
            try reference.core.write(toFile: file)
        }
        if case .success(let core) = task.core {
            // On the core's callback thread, so the check never waits for the callback queue.
            _ = try! core.observe(.progress) { snapshot in
                let size = max(snapshot.totalBytes, snapshot.bytesTransferred)
                guard size > maxSize else { return }
                task.lock.withLock { task.sizeExceeded = .downloadSizeExceeded(total: size, maxSize: maxSize) }
                core.cancel()
            }
        }
        task.complete(completion) { _ in
            defer { unlink(file) }
            guard let data = FileManager.default.contents(atPath: file) else {
                return .failure(.unknown(message: "The downloaded data of \(reference) could not be read back", serverError: [:]))
            }
            guard data.count <= maxSize else {
                return .failure(.downloadSizeExceeded(total: Int64(data.count), maxSize: maxSize))
            }
            return .success(data)
        }
        return task
    }
}
