/// How important a log line is; the raw values are `fbs_log_level`'s.
public enum LogLevel: Int32, Sendable {
    /// An operation or task failed for good.
    case error = 1
    /// A retry, or an upload starting over.
    case warning = 2
    /// A step of a task: a resumable upload's position after asking the server.
    case info = 3
    /// One line per HTTP attempt.
    case debug = 4
}
