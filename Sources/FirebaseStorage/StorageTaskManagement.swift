/// Task operations, as the Apple SDK declares them for every task it runs: `enqueue()` begins a
/// task; `pause()`, `cancel()` and `resume()` act on it. `StorageUploadTask` and
/// `StorageDownloadTask` adopt it, so code written against the protocol compiles unchanged.
/// (The Apple SDK marks the last three optional, an Objective-C feature; here every task has them.)
public protocol StorageTaskManagement: AnyObject {
    /// Prepares a task and begins execution.
    func enqueue()

    /// Pauses a task currently in progress.
    func pause()

    /// Cancels a task.
    func cancel()

    /// Resumes a paused task.
    func resume()
}
