import FBStorage
import Foundation

/// A task whose status changes can be observed; handlers run on `Storage.callbackQueue`.
open class StorageObservableTask: StorageTask {
    private let lock = NSLock()
    /// The handles of the observers not removed, with their status. Handlers are dispatched to the
    /// callback queue, so one already on its way checks here that it was not removed meanwhile.
    private var live: [String: StorageTaskStatus] = [:]
    private var coreHandles: [String: Int64] = [:]

    /// Calls `handler` at each `status` event, and at once if the task is already in that status.
    /// Returns a handle for `removeObserver(withHandle:)`. Observing `.unknown` stops the
    /// program, as in the Apple SDK.
    @discardableResult
    open func observe(_ status: StorageTaskStatus, handler: @escaping (StorageTaskSnapshot) -> Void) -> String {
        guard status != .unknown, let coreStatus = FBStorage.StorageTaskStatus(rawValue: Int32(status.rawValue)) else {
            fatalError("Invalid observer status requested, use one of: Pause, Resume, Progress, Complete, or Failure")
        }
        // The handle exists before the first call: a call may come at once.
        let handle = lock.withLock { () -> String in
            let handle = UUID().uuidString
            live[handle] = status
            return handle
        }
        let call = { [self] (snapshot: StorageTaskSnapshot) in
            if lock.withLock({ live[handle] != nil }) { handler(snapshot) }
        }
        let queue = reference.storage.callbackQueue
        switch core {
        case .success(let task):
            let progressChanges = ProgressChanges()
            // Only `.unknown` makes observe throw.
            let coreHandle = try! task.observe(coreStatus) { [self] coreSnapshot in
                let snapshot = snapshot(of: coreSnapshot)
                if status == .progress {
                    guard progressChanges.moved(coreSnapshot) else { return }
                    forward(to: queue, holding: task) { call(snapshot) }
                } else {
                    queue.async { call(snapshot) }
                }
            }
            lock.withLock { coreHandles[handle] = coreHandle }
        case .failure:
            if status == .failure { queue.async { call(self.snapshot) } }
        }
        return handle
    }

    /// Removes the observer `handle` names; it is not called again.
    open func removeObserver(withHandle handle: String) {
        remove { $0 == handle }
    }

    /// Removes every observer of `status`.
    open func removeAllObservers(for status: StorageTaskStatus) {
        remove { live[$0] == status }
    }

    /// Removes every observer.
    open func removeAllObservers() {
        remove { _ in true }
    }

    private func remove(where matches: (String) -> Bool) {
        let removed = lock.withLock { () -> [Int64] in
            let handles = live.keys.filter(matches)
            for handle in handles { live[handle] = nil }
            return handles.compactMap { coreHandles.removeValue(forKey: $0) }
        }
        if case .success(let task) = core {
            for handle in removed { task.removeObserver(handle) }
        }
    }

    /// Begins the task (`StorageTaskManagement`). The calls that create a task begin it already,
    /// as the Apple SDK's enqueue it before returning it, so this does nothing more.
    open func enqueue() {}

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
