import FBStorage
import Foundation

/// Lets through the PROGRESS events of a task whose numbers moved. The core reports a chunk of
/// a resumable upload twice, as its bytes went out and as the server confirmed them, with the
/// same numbers; the Apple SDK reports progress as bytes move (1 MiB put in 256 KiB chunks: 4
/// to 6 events, which its integration test `testPutFileTinyChunk` checks). One per observer.
final class ProgressChanges: @unchecked Sendable {
    private let lock = NSLock()
    private var last: (bytes: Int64, total: Int64)?

    /// False when `snapshot` has the numbers of the previous PROGRESS seen here.
    func moved(_ snapshot: FBStorage.StorageTaskSnapshot) -> Bool {
        lock.withLock {
            let now = (bytes: snapshot.bytesTransferred, total: snapshot.totalBytes)
            defer { last = now }
            guard let last else { return true }
            return last.bytes != now.bytes || last.total != now.total
        }
    }
}
