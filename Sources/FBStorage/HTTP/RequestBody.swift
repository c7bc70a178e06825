import Glibc

/// A request body the engine pulls from on the transfer thread, possibly more than once (curl rewinds
/// the body when it has to resend the request on a new connection).
protocol RequestBody: AnyObject, Sendable {
    /// Total number of bytes; sent as `Content-Length`.
    var length: Int64 { get }
    /// Fill `buffer` with the body bytes starting at `offset` (0-based within this body). Returns bytes
    /// written (0 only at the end), or -1 on an I/O error (the transfer then fails). Called on the
    /// transfer thread; must be quick and must not block on other locks.
    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) -> Int
}

/// A body held in memory: a whole array or a range of one (the array is shared, not copied).
final class BytesBody: RequestBody {
    private let bytes: [UInt8]
    private let range: Range<Int>

    var length: Int64 { Int64(range.count) }

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
        self.range = bytes.indices
    }

    /// A view of `bytes[range]`; `range` must lie within `bytes.indices`.
    init(_ bytes: [UInt8], range: Range<Int>) {
        precondition(range.lowerBound >= 0 && range.upperBound <= bytes.count, "BytesBody range out of bounds")
        self.bytes = bytes
        self.range = range
    }

    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) -> Int {
        guard offset >= 0, offset <= Int64(range.count) else { return -1 }
        let start = range.lowerBound + Int(offset)
        let n = min(buffer.count, range.upperBound - start)
        guard n > 0 else { return 0 }
        bytes.withUnsafeBytes { src in
            buffer.baseAddress!.copyMemory(from: src.baseAddress! + start, byteCount: n)
        }
        return n
    }
}

/// A range of an open file, read with `pread` straight into curl's buffer. Does not own or close `fd`;
/// the caller keeps it open until the transfer completes.
final class FileBody: RequestBody {
    let fd: Int32
    let offset: Int64
    let length: Int64

    init(fd: Int32, offset: Int64, length: Int64) {
        precondition(offset >= 0 && length >= 0, "FileBody offset and length must not be negative")
        self.fd = fd
        self.offset = offset
        self.length = length
    }

    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) -> Int {
        guard offset >= 0, offset <= length else { return -1 }
        let want = Int(min(Int64(buffer.count), length - offset))
        guard want > 0 else { return 0 }
        while true {
            let n = pread(fd, buffer.baseAddress, want, off_t(self.offset + offset))
            if n >= 0 { return n == 0 ? -1 : n }   // EOF before `length`: the file shrank
            if errno != EINTR { return -1 }
        }
    }
}
