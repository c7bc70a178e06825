/// Log lines for the retry decisions shared by operations, uploads and downloads.
enum RetryLog {
    /// The next attempt of the work on `subject` starts in `delay` seconds.
    static func retrying(_ subject: RequestSubject, in delay: Double, after cause: StorageError) {
        LogHook.log(.warning, "\(subject): retrying in \((delay * 100).rounded() / 100) s after: \(cause.message)")
    }

    /// The work on `subject` failed for good.
    static func gaveUp(_ subject: RequestSubject, _ error: StorageError) {
        LogHook.log(.error, "\(subject): failed: \(error.message)")
    }
}
