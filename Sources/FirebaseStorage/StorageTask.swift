import FBStorage
import Foundation

/// An upload or a download, as in the Apple SDK, over a core task (which runs it).
open class StorageTask {
    let reference: StorageReference
    /// The running core task, or the error that kept it from starting (a missing file, the
    /// bucket root): such a task reports that failure to its observers and completion.
    let core: Result<FBStorage.StorageTask, StorageError>

    init(reference: StorageReference, start: () throws(FBStorage.StorageError) -> FBStorage.StorageTask) {
        self.reference = reference
        do {
            core = .success(try start())
        } catch {
            core = .failure(reference.error(from: error))
        }
    }

    /// The task's latest state.
    public var snapshot: StorageTaskSnapshot {
        switch core {
        case .success(let task): snapshot(of: task.snapshot)
        case .failure(let error): StorageTaskSnapshot(task: self, status: .failure, bytes: 0, total: 0, error: error.nsError)
        }
    }

    /// The Apple snapshot of a core snapshot of this task.
    func snapshot(of core: FBStorage.StorageTaskSnapshot) -> StorageTaskSnapshot {
        StorageTaskSnapshot(task: self, status: StorageTaskStatus(rawValue: Int(core.status.rawValue)) ?? .unknown,
                            bytes: core.bytesTransferred, total: core.totalBytes,
                            metadata: core.metadata.map(StorageMetadata.init(core:)),
                            error: core.error.map { failure(from: $0).nsError })
    }

    /// The error a core failure reports (a download over its size limit replaces the cancel).
    func failure(from error: FBStorage.StorageError) -> StorageError {
        reference.error(from: error)
    }

    /// Calls `done` once on the callback queue: with `success` of the final snapshot when the task
    /// succeeded, with its error when it failed.
    func complete<U>(_ done: ((Result<U, StorageError>) -> Void)?,
                     _ success: @escaping (FBStorage.StorageTaskSnapshot) -> Result<U, StorageError>) {
        guard let done else { return }
        switch core {
        case .failure(let error):
            reference.storage.callbackQueue.async { done(.failure(error)) }
        case .success(let task):
            // On the transfer thread: straight to the callback queue, not through the core's
            // callback thread (one thread switch less per task).
            task.onEnd { [self] snapshot in
                let result = snapshot.error.map { .failure(failure(from: $0)) } ?? success(snapshot)
                reference.storage.callbackQueue.async { done(result) }
            }
        }
    }
}
