/// The status a task reports with each snapshot (the values of the core's task status).
public enum StorageTaskStatus: Int {
    case unknown = 0
    /// The task started or resumed.
    case resume = 1
    /// Bytes moved.
    case progress = 2
    case pause = 3
    case success = 4
    case failure = 5
}
