/// The status a task reports with each event (the values of `fbs_task_status`).
public enum StorageTaskStatus: Int32, Sendable, CaseIterable {
    case unknown = 0
    /// The task started or resumed.
    case resume = 1
    /// Bytes moved.
    case progress = 2
    case pause = 3
    case success = 4
    case failure = 5

    var isTerminal: Bool { self == .success || self == .failure }
}
