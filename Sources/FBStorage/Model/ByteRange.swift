/// A part of an object to read: `length` bytes from `offset`, everything from `offset`, or the
/// last `count` bytes. A range that reaches past the end of the object is an error
/// (`rangeNotSatisfiable`), never a short read: `slice(offset: size, length: 0)`,
/// `from(offset: size)` and `last(count: 0)` are the empty ranges at the end.
public enum ByteRange: Sendable, Equatable, CustomStringConvertible {
    case slice(offset: Int64, length: Int64)
    case from(offset: Int64)
    case last(count: Int64)

    /// - Throws: `invalidArgument` for a negative offset, length or count.
    func validate() throws(StorageError) {
        switch self {
        case .slice(let offset, let length):
            guard offset >= 0, length >= 0, offset <= Int64.max - length else {
                throw .invalidArgument("A range needs an offset >= 0 and a length >= 0 (got \(self))")
            }
        case .from(let offset):
            guard offset >= 0 else { throw .invalidArgument("A range needs an offset >= 0 (got \(self))") }
        case .last(let count):
            guard count >= 0 else { throw .invalidArgument("A range needs a count >= 0 (got \(self))") }
        }
    }

    /// The `Range` header value of the first request. An empty range asks for one byte (HTTP
    /// has no empty range): the answer still tells the object's size, which decides whether the
    /// empty range is at or before its end.
    var firstRequestHeader: String {
        switch self {
        case .slice(let offset, let length) where length > 0: "bytes=\(offset)-\(offset + length - 1)"
        case .slice(let offset, _): "bytes=\(offset)-\(offset)"
        case .from(let offset): "bytes=\(offset)-"
        case .last(let count) where count > 0: "bytes=-\(count)"
        case .last: "bytes=0-0"
        }
    }

    /// The absolute bytes `[start, end)` this range selects of an object of `size` bytes.
    /// - Throws: `rangeNotSatisfiable` when the range reaches past the end.
    func window(size: Int64, of path: StoragePath) throws(StorageError) -> Range<Int64> {
        let window: Range<Int64>? = switch self {
        case .slice(let offset, let length): offset + length <= size ? offset..<(offset + length) : nil
        case .from(let offset): offset <= size ? offset..<size : nil
        case .last(let count): count <= size ? (size - count)..<size : nil
        }
        guard let window else {
            throw StorageError(code: .rangeNotSatisfiable,
                               message: "The range \(self) reaches past the end of \(path.gsURL), which has \(size) bytes")
        }
        return window
    }

    public var description: String {
        switch self {
        case .slice(let offset, let length): "\(length) bytes from offset \(offset)"
        case .from(let offset): "from offset \(offset) to the end"
        case .last(let count): "the last \(count) bytes"
        }
    }
}
