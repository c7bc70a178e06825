import FirebaseStorage
import Foundation

/// The run's tally: every check prints "ok NAME" or "FAIL NAME", and main prints "N passed, N failed".
enum Tally {
    static var passed = 0
    static var failed = 0
}

func check(_ condition: Bool, _ name: String) {
    if condition {
        Tally.passed += 1
        print("ok \(name)")
    } else {
        Tally.failed += 1
        print("FAIL \(name)")
    }
}

/// Waits for a task's SUCCESS or FAILURE (only one of them happens).
func finished(_ task: StorageObservableTask) async -> StorageTaskSnapshot {
    await withCheckedContinuation { continuation in
        task.observe(.success) { continuation.resume(returning: $0) }
        task.observe(.failure) { continuation.resume(returning: $0) }
    }
}

/// The `StorageErrorCode` of a snapshot's error, read as the guides do.
func errorCode(_ snapshot: StorageTaskSnapshot) -> StorageErrorCode? {
    (snapshot.error as? NSError).flatMap { StorageErrorCode(rawValue: $0.code) }
}
