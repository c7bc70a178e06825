/// Task operations, as the Apple SDK declares them: every task implements `enqueue()`, which
/// begins it, and may implement `pause()`, `cancel()` and `resume()`. The Apple SDK marks those
/// three `@objc optional`, an Objective-C feature; here they are requirements with default
/// implementations that do nothing, so a type adopting the protocol needs `enqueue()` only, as on
/// Apple platforms. `StorageUploadTask` and `StorageDownloadTask` implement all four.
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

public extension StorageTaskManagement {
    func pause() {}
    func cancel() {}
    func resume() {}
}
