import Foundation

/// The state of a task at one event. Immutable.
open class StorageTaskSnapshot {
    /// The task this snapshot describes.
    public let task: StorageTask
    /// The object's metadata, once an upload succeeded.
    public let metadata: StorageMetadata?
    /// The reference the task works on.
    public let reference: StorageReference
    /// Bytes moved (`completedUnitCount`) of the total (`totalUnitCount`, -1 while a download's
    /// size is unknown). A new `Progress` per snapshot.
    public let progress: Progress?
    /// Why the task failed (with status `.failure`): an `NSError` of `StorageErrorDomain`.
    public let error: Error?
    /// The event this snapshot reports.
    public let status: StorageTaskStatus

    init(task: StorageTask, status: StorageTaskStatus, bytes: Int64, total: Int64,
         metadata: StorageMetadata? = nil, error: NSError? = nil) {
        self.task = task
        self.status = status
        reference = task.reference
        let progress = Progress(totalUnitCount: total)
        progress.completedUnitCount = bytes
        self.progress = progress
        self.metadata = metadata
        self.error = error
    }
}

extension StorageTaskSnapshot: CustomStringConvertible {
    public var description: String {
        switch status {
        case .resume: "<State: Resume>"
        case .progress: "<State: Progress, Progress: \(String(describing: progress))>"
        case .pause: "<State: Paused>"
        case .success: "<State: Success>"
        case .failure: "<State: Failed, Error: \(String(describing: error))"
        case .unknown: "<State: Unknown>"
        }
    }
}
