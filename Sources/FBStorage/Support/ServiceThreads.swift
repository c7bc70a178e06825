/// The two threads each request host (a storage, an auth, a service account) owns: the transfer
/// thread that drives libcurl and the state machines, and the callback thread where user code
/// runs. Started together (neither is left running when the other cannot start) and stopped
/// together when the host goes away.
final class ServiceThreads: Sendable {
    let engine: any TransferEngine
    let callbackQueue: CallbackQueue

    init(engine: @autoclosure () throws(StorageError) -> any TransferEngine, callbacks name: String) throws(StorageError) {
        self.engine = try engine()
        do {
            callbackQueue = try CallbackQueue(name: name)
        } catch {
            self.engine.shutdown()
            throw error
        }
    }

    deinit { shutdown() }

    /// Stops both threads (idempotent; see `TransferEngine.shutdown` and `CallbackQueue.shutdown`).
    func shutdown() {
        engine.shutdown()
        callbackQueue.shutdown()
    }
}
