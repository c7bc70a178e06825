import FBStorage
import Foundation

/// A download started by `write(toFile:)` or `getData(maxSize:)`.
open class StorageDownloadTask: StorageObservableTask, StorageTaskManagement {
    init(reference: StorageReference, failure: TaskFailure, hooks: TaskHooks,
         start: ((FBStorage.StorageTask) -> Void) throws(FBStorage.StorageError) -> FBStorage.StorageDownloadTask) {
        super.init(reference: reference, failure: failure, hooks: hooks, start: start)
    }

    /// getData: the core downloads to a temporary file (so pause, resume, retries and progress
    /// work as for files), read into memory and removed at the end.
    static func inMemory(reference: StorageReference, maxSize: Int64,
                         completion: @escaping (Result<Data, StorageError>) -> Void) -> StorageDownloadTask {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("fbstorage-data-\(UUID().uuidString)").path
        let failure = TaskFailure(reference: reference)
        let hooks = TaskHooks(completion: completion, on: { reference.storage.callbackQueue }) { _ in
            defer { unlink(file) }
            guard let data = FileManager.default.contents(atPath: file) else {
                return .failure(.unknown(message: "The downloaded data of \(reference) could not be read back", serverError: [:]))
            }
            guard data.count <= maxSize else {
                return .failure(.downloadSizeExceeded(total: Int64(data.count), maxSize: maxSize))
            }
            return .success(data)
        }
        return StorageDownloadTask(reference: reference, failure: failure, hooks: hooks) {
            (prepare) throws(FBStorage.StorageError) in
            try reference.core.write(toFile: file) { core in
                // First, on the core's callback thread: the check never waits for the callback queue.
                _ = try! core.observe(.progress) { snapshot in
                    let size = max(snapshot.totalBytes, snapshot.bytesTransferred)
                    guard size > maxSize else { return }
                    failure.cancelling(because: .downloadSizeExceeded(total: size, maxSize: maxSize))
                    core.cancel()
                }
                prepare(core)
            }
        }
    }
}
