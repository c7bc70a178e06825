import FBStorage
import Foundation

/// A task whose status changes can be observed; handlers run on `Storage.callbackQueue`.
open class StorageObservableTask: StorageTask {
    /// Calls `handler` at each `status` event, and at once if the task is already in that status.
    /// Returns a handle for `removeObserver(withHandle:)`. Observing `.unknown` stops the
    /// program, as in the Apple SDK.
    @discardableResult
    open func observe(_ status: StorageTaskStatus, handler: @escaping (StorageTaskSnapshot) -> Void) -> String {
        guard status != .unknown, let coreStatus = FBStorage.StorageTaskStatus(rawValue: Int32(status.rawValue)) else {
            fatalError("Invalid observer status requested, use one of: Pause, Resume, Progress, Complete, or Failure")
        }
        switch core {
        case .success(let task):
            // Only `.unknown` makes observe throw.
            let handle = try! task.observe(coreStatus) { [self] snapshot in
                let converted = self.snapshot(of: snapshot)
                reference.storage.callbackQueue.async { handler(converted) }
            }
            return String(handle)
        case .failure:
            if status == .failure {
                let failed = snapshot
                reference.storage.callbackQueue.async { handler(failed) }
            }
            return UUID().uuidString
        }
    }

    /// Removes the observer `handle` names.
    open func removeObserver(withHandle handle: String) {
        if case .success(let task) = core, let handle = Int64(handle) { task.removeObserver(handle) }
    }

    /// Removes every observer of `status`.
    open func removeAllObservers(for status: StorageTaskStatus) {
        if case .success(let task) = core, let coreStatus = FBStorage.StorageTaskStatus(rawValue: Int32(status.rawValue)) {
            task.removeAllObservers(for: coreStatus)
        }
    }

    /// Removes every observer.
    open func removeAllObservers() {
        if case .success(let task) = core { task.removeAllObservers() }
    }

    /// Pauses a running task; `resume()` continues it where it stopped.
    open func pause() {
        if case .success(let task) = core { task.pause() }
    }

    /// Continues a paused task.
    open func resume() {
        if case .success(let task) = core { task.resume() }
    }

    /// Cancels the task: it fails with `StorageErrorCode.cancelled`.
    open func cancel() {
        if case .success(let task) = core { task.cancel() }
    }
}
