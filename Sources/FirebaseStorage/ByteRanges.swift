import FBStorage
import Foundation

// fbstorage's own, outside the Apple SDK's surface: byte ranges of an object.
public extension StorageReference {
    /// The bytes `range` of the object, in one ranged request (an extra of fbstorage: the Apple
    /// SDK has no such call). A range that reaches past the end of the object fails (with
    /// `.unknown`, whose failure reason says so), never with fewer bytes.
    func data(range: Range<Int64>) async throws -> Data {
        try await awaiting { done in
            run({ [core] done throws(FBStorage.StorageError) in
                try core.getData(range: .slice(offset: range.lowerBound, length: Int64(range.count)), maxSize: .max, completion: done)
            }, { buffer in buffer.withUnsafeBytes { Data($0) } }, done)
        }
    }
}
