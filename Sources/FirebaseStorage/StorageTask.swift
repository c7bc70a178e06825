import FBStorage
import Foundation

/// An upload or a download, as in the Apple SDK, over a core task (which runs it).
open class StorageTask {
    let reference: StorageReference
    /// The running core task, or the error that kept it from starting (a missing file, the
    /// bucket root): such a task reports that failure to its observers and completion.
    let core: Result<FBStorage.StorageTask, StorageError>
    /// Maps a core failure to the error the task reports (a download over its size limit
    /// replaces the cancel).
    private let failure: TaskFailure

    /// `start` creates the core task and runs the `prepare` it is given on it before it starts,
    /// as the Apple SDK adds a completion's observers before it enqueues the task: `hooks`
    /// observe every event, even of a task that ends at once.
    init(reference: StorageReference, failure: TaskFailure, hooks: TaskHooks,
         start: ((FBStorage.StorageTask) -> Void) throws(FBStorage.StorageError) -> FBStorage.StorageTask) {
        self.reference = reference
        self.failure = failure
        do {
            let task = try start { task in
                // A download does not end before the callback queue ran what was queued when the
                // task was created: code there that creates a task and then observes, pauses or
                // cancels it in the same block misses none of its end (as on the Apple SDK's main queue).
                task.holdEnd()
                hooks.attach(task, failure)
            }
            core = .success(task)
            reference.storage.callbackQueue.async { task.releaseEnd() }
        } catch {
            let error = failure.map(error)
            core = .failure(error)
            hooks.failedToStart(error, reference.storage.callbackQueue)
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
                            error: core.error.map { failure.map($0).nsError })
    }
}

/// The error a task's core failure reports: the reference's, unless the task stopped itself
/// for a reason of its own (`getData` over its size limit).
final class TaskFailure: @unchecked Sendable {
    private let reference: StorageReference
    private let lock = NSLock()
    private var ownReason: StorageError?

    init(reference: StorageReference) {
        self.reference = reference
    }

    /// Records why the task is about to cancel itself; its failure reports that instead.
    func cancelling(because reason: StorageError) {
        lock.withLock { ownReason = reason }
    }

    func map(_ error: FBStorage.StorageError) -> StorageError {
        lock.withLock { ownReason } ?? reference.error(from: error)
    }
}

/// What the calls that create a task attach to it before it starts: the completion handler
/// (from SUCCESS and FAILURE observers, so it runs after every PROGRESS observer, as in the
/// Apple SDK) and the async forms' `onProgress`.
struct TaskHooks {
    private var observers: [(FBStorage.StorageTask, TaskFailure) -> Void] = []
    private var startFailures: [(StorageError, DispatchQueue) -> Void] = []

    init() {}

    /// Calls `done` once on `queue`: with `success` of the final snapshot when the task
    /// succeeded (evaluated on `queue`), with its error when it failed.
    init<U>(completion done: ((Result<U, StorageError>) -> Void)?, on queue: @escaping () -> DispatchQueue,
            _ success: @escaping (FBStorage.StorageTaskSnapshot) -> Result<U, StorageError>) {
        guard let done else { return }
        observers.append { task, failure in
            let end: StorageTaskObserver = { snapshot in
                let error = snapshot.error.map(failure.map)
                queue().async { done(error.map { .failure($0) } ?? success(snapshot)) }
            }
            // Only `.unknown` makes observe throw.
            _ = try! task.observe(.success, end)
            _ = try! task.observe(.failure, end)
        }
        startFailures.append { error, queue in queue.async { done(.failure(error)) } }
    }

    /// Also calls `onProgress` with each PROGRESS event's `Progress` on `queue`.
    func reportingProgress(_ onProgress: ((Progress?) -> Void)?, on queue: @escaping () -> DispatchQueue) -> TaskHooks {
        guard let onProgress else { return self }
        var hooks = self
        hooks.observers.insert({ task, _ in
            let progressChanges = ProgressChanges()
            _ = try! task.observe(.progress) { snapshot in
                guard progressChanges.moved(snapshot) else { return }
                let progress = Progress(totalUnitCount: snapshot.totalBytes)
                progress.completedUnitCount = snapshot.bytesTransferred
                forward(to: queue(), holding: task) { onProgress(progress) }
            }
        }, at: 0)
        return hooks
    }

    func attach(_ task: FBStorage.StorageTask, _ failure: TaskFailure) {
        for observe in observers { observe(task, failure) }
    }

    func failedToStart(_ error: StorageError, _ queue: DispatchQueue) {
        for report in startFailures { report(error, queue) }
    }
}

/// Runs a PROGRESS handler on `queue`, holding the task's end until it returned: a pause() or
/// cancel() it calls takes effect before the end, however fast the last bytes came.
func forward(to queue: DispatchQueue, holding task: FBStorage.StorageTask, _ handler: @escaping () -> Void) {
    task.holdEnd()
    queue.async {
        handler()
        task.releaseEnd()
    }
}
