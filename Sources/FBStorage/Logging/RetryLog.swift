/// Log lines for the retry decisions shared by operations, uploads and downloads.
enum RetryLog {
    /// The next attempt of the work on `path` starts in `delay` seconds.
    static func retrying(_ path: StoragePath, in delay: Double, after cause: StorageError) {
        LogHook.log(.warning, "\(path.gsURL): retrying in \((delay * 100).rounded() / 100) s after: \(cause.message)")
    }

    /// The work on `path` failed for good.
    static func gaveUp(_ path: StoragePath, _ error: StorageError) {
        LogHook.log(.error, "\(path.gsURL): failed: \(error.message)")
    }
}
