// StorageTask.onEnd, the hook FirebaseStorage delivers completions through: once, with the final
// snapshot, on the transfer thread (or at once for an ended task).
import Testing

@testable import FBStorage

@Suite("Task end handlers")
struct TaskEndHandlerTests {
    @Test("onEnd runs once on the transfer thread with the final snapshot, or at once after the end",
          arguments: Flavor.allCases)
    func endHandlers(flavor: Flavor) throws {
        let storage = try Emulator.shared(flavor).storage()
        defer { storage.close() }
        let task = try storage.reference("end/handler.bin").putData(Array(repeating: 7, count: 1000))
        let calls = Locked<Int>(0)
        let ended = Completion<(StorageTaskStatus, Int64?, Bool)>()
        task.onEnd { snapshot in
            calls.withLock { $0 += 1 }
            ended.complete((snapshot.status, snapshot.metadata?.size, storage.engine.isTransferThread))
        }
        let (status, size, onTransferThread) = ended.wait()
        #expect(status == .success && size == 1000 && onTransferThread)
        let late = Locked<[StorageTaskStatus]>([])
        task.onEnd { snapshot in late.withLock { $0.append(snapshot.status) } }
        #expect(late.withLock { $0 } == [.success])
        #expect(calls.withLock { $0 } == 1)
    }
}
