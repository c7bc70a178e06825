#if canImport(Glibc)
import Glibc
#endif

/// Fills the buffer with the next bytes of a stream to upload: the count read, 0 at the end,
/// `StorageUploadTask.streamNotReady` when no byte is ready yet (the upload waits for
/// `StorageTask.resume()`), or the error that fails the upload.
public typealias StreamRead = (UnsafeMutableRawBufferPointer) -> Result<Int, StorageError>

/// An upload source of unknown length: a caller's read function, or a file descriptor (a pipe,
/// a socket, stdin). It keeps only the bytes the server has not confirmed yet, so an upload of
/// any size takes one chunk of memory; the length is known once the read function reports the
/// end. Touched only on the transfer thread.
final class StreamUploadSource: UploadSource, @unchecked Sendable {
    typealias Read = StreamRead

    static let notReady = StorageUploadTask.streamNotReady

    /// A stream's chunks: small enough to keep in memory, large enough to cost few requests.
    static let chunkLimit: Int64 = 8 << 20
    /// How far a descriptor is read ahead of the chunk being sent: half a chunk keeps the
    /// upload's memory near one chunk and still hides most of the reading.
    static let readAheadLimit = Int(chunkLimit / 2)

    private(set) var length: Int64 = -1
    let filePath: String? = nil
    private let readNext: Read
    private var readAhead: DescriptorReadAhead?
    private var buffer: UnsafeMutableRawPointer?
    private var capacity = 0
    /// The object offset of the first retained byte, and how many are retained.
    private var start: Int64 = 0
    private var count = 0

    init(read: @escaping Read) {
        readNext = read
    }

    /// Reads the open file descriptor `fd` (left open) to its end, ahead of the upload on a
    /// thread of its own (`DescriptorReadAhead`); a non-blocking one is waited for with poll(2).
    convenience init(descriptor fd: Int32) throws(StorageError) {
        let readAhead = try DescriptorReadAhead(descriptor: fd, limit: Self.readAheadLimit)
        self.init { buffer in readAhead.read(into: buffer) }
        self.readAhead = readAhead
    }

    /// For a descriptor: `notify` runs (on its reader's thread) when bytes arrive after a fill
    /// found none. A read function's caller calls `resume()` instead.
    func onBytesReady(_ notify: @escaping @Sendable () -> Void) { readAhead?.onReady(notify) }

    deinit { free(buffer) }

    var retained: ClosedRange<Int64> { start...(start + Int64(count)) }

    func checkUnchanged() throws(StorageError) {}

    /// Reads until the bytes up to `offset` are retained or the stream ended: true; false when
    /// the read function has no byte ready yet (call again later).
    func fill(to offset: Int64) throws(StorageError) -> Bool {
        let needed = Int(offset - start)
        guard length < 0, count < needed else { return true }
        if needed > capacity {
            guard let grown = realloc(buffer, needed) else {
                throw StorageError(code: .internalError, message: "Out of memory for a chunk of \(needed) bytes")
            }
            (buffer, capacity) = (grown, needed)
        }
        while count < needed {
            let n = try readNext(UnsafeMutableRawBufferPointer(start: buffer! + count, count: needed - count)).get()
            if n == Self.notReady { return false }
            guard n > 0 else {
                length = start + Int64(count)
                return true
            }
            guard n <= needed - count else {
                throw StorageError(code: .invalidArgument, message: "The read function returned \(n) bytes, more than the \(needed - count) asked for")
            }
            count += n
        }
        return true
    }

    /// Forgets the bytes before `offset` (the server confirmed them).
    func release(before offset: Int64) {
        let drop = Int(min(max(offset - start, 0), Int64(count)))
        guard drop > 0, let buffer else { return }
        memmove(buffer, buffer + drop, count - drop)
        start += Int64(drop)
        count -= drop
    }

    func read(into target: UnsafeMutableRawBufferPointer, at offset: Int64) -> Int {
        guard offset >= start, let buffer, let base = target.baseAddress else { return offset >= start ? 0 : -1 }
        let available = Int(max(0, start + Int64(count) - offset))
        let n = min(target.count, available)
        base.copyMemory(from: buffer + Int(offset - start), byteCount: n)
        return n
    }
}

extension StorageUploadTask {
    /// What a `putStream` read function returns when no byte is ready yet: the upload waits,
    /// other transfers going on, until `resume()` (call it once bytes are ready).
    public static let streamNotReady = -1
}
