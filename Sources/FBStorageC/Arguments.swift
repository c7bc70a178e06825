import FBStorage

/// Converting C arguments to Swift values, with the header's error codes.
enum Arguments {
    /// A required UTF-8 string. Bad paths and URLs are path errors; other bad strings are
    /// invalid arguments.
    static func string(_ pointer: UnsafePointer<CChar>?, _ name: String, isPath: Bool = false) throws(StorageError) -> String {
        guard let pointer else { throw StorageError(code: .invalidArgument, message: "\(name) is NULL") }
        guard let string = String(validatingCString: pointer) else {
            throw StorageError(code: isPath ? .pathError : .invalidArgument, message: "\(name) is not valid UTF-8")
        }
        return string
    }

    /// An optional UTF-8 string: NULL gives nil.
    static func optionalString(_ pointer: UnsafePointer<CChar>?, _ name: String, isPath: Bool = false) throws(StorageError) -> String? {
        guard let pointer else { return nil }
        return try string(pointer, name, isPath: isPath)
    }

    /// Checks an out-parameter is present.
    static func out<T>(_ pointer: UnsafeMutablePointer<T>?, _ name: String = "out") throws(StorageError) -> UnsafeMutablePointer<T> {
        guard let pointer else { throw StorageError(code: .invalidArgument, message: "The \(name) pointer is NULL") }
        return pointer
    }

    /// A speed cap: bytes per second, 0 for none.
    static func bytesPerSecond(_ value: Int64) throws(StorageError) -> Int64 {
        guard value >= 0 else { throw StorageError(code: .invalidArgument, message: "bytes_per_second must be >= 0 (0: no cap)") }
        return value
    }

    /// A `const fbs_allocator *`, read field by field as the header lays it out (three pointers).
    static func allocator(_ pointer: UnsafeRawPointer?) throws(StorageError) -> MemoryAllocator {
        typealias Allocate = @convention(c) (Int, UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer?
        typealias Release = @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> Void
        guard let pointer else { throw StorageError(code: .invalidArgument, message: "allocator is NULL") }
        let word = MemoryLayout<UnsafeRawPointer>.stride
        guard let allocate = pointer.load(as: Allocate?.self),
              let release = pointer.load(fromByteOffset: word, as: Release?.self) else {
            throw StorageError(code: .invalidArgument, message: "allocator->allocate and allocator->release must not be NULL")
        }
        let userData = UserData(pointer: pointer.load(fromByteOffset: 2 * word, as: UnsafeMutableRawPointer?.self))
        return MemoryAllocator(allocate: { allocate($0, userData.pointer) }, release: { release($0, userData.pointer) })
    }

    /// A positive, finite number of seconds.
    static func seconds(_ value: Double, _ name: String) throws(StorageError) -> Double {
        guard value.isFinite, value > 0 else { throw StorageError(code: .invalidArgument, message: "\(name) must be a positive number of seconds") }
        return value
    }
}

/// A raw pointer carried across threads into a C callback; the C caller owns what it points to.
struct UserData: @unchecked Sendable {
    let pointer: UnsafeMutableRawPointer?
}
