#if canImport(Glibc)
import Glibc
#endif

/// The bytes of an upload, read by offset.
protocol UploadSource: AnyObject, Sendable {
    /// The size in bytes; -1 while a stream's end was not read yet.
    var length: Int64 { get }
    /// The local file, for content-type inference and messages.
    var filePath: String? { get }
    /// The offsets the source can still send from: a stream forgets what the server confirmed.
    var retained: ClosedRange<Int64> { get }
    /// Throws when the bytes changed since the upload started.
    func checkUnchanged() throws(StorageError)
    /// Copies up to `buffer.count` bytes from `offset`; -1 on a read error, 0 past the end.
    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) -> Int
}

extension UploadSource {
    /// Reads `[offset, offset + count)` fully into memory (used for small multipart bodies).
    func readAll(offset: Int64 = 0, count: Int) -> [UInt8]? {
        var result = [UInt8](repeating: 0, count: count)
        let n = result.withUnsafeMutableBytes { read(into: $0, at: offset) }
        return n == count ? result : nil
    }
}

/// A private copy of the caller's data, or an open regular file read with `pread` (so a file of
/// any size streams in constant memory).
final class FixedUploadSource: UploadSource, @unchecked Sendable {
    let length: Int64
    /// The local file, for content-type inference and messages.
    let filePath: String?
    private let bytes: [UInt8]
    private let fd: Int32

    init(bytes: [UInt8]) {
        self.bytes = bytes
        length = Int64(bytes.count)
        fd = -1
        filePath = nil
    }

    /// Opens `path`, which must be a readable regular file.
    init(filePath path: String) throws(StorageError) {
        let unreachable = "File at path: \(path) is not reachable. Ensure it is a readable regular file"
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            throw StorageError(code: .unknown, message: "\(unreachable) (\(String(cString: strerror(errno))))")
        }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            close(fd)
            throw StorageError(code: .unknown, message: "\(unreachable) (not a regular file)")
        }
        self.fd = fd
        length = Int64(info.st_size)
        bytes = []
        filePath = path
    }

    deinit {
        if fd >= 0 { close(fd) }
    }

    var retained: ClosedRange<Int64> { 0...length }

    /// Throws `invalidArgument` when the file's size is no longer the size it had when opened:
    /// an upload of a file that grows or shrinks meanwhile can never store what the caller meant.
    func checkUnchanged() throws(StorageError) {
        guard fd >= 0 else { return }
        var info = stat()
        guard fstat(fd, &info) == 0 else { return }
        if Int64(info.st_size) != length {
            throw .invalidArgument("The file \(filePath ?? "") changed size while it was uploaded (\(length) bytes when the upload started, \(info.st_size) now); nothing was finalized")
        }
    }

    /// Copies up to `buffer.count` bytes from `offset`; -1 on a read error, 0 past the end.
    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) -> Int {
        let count = Int(min(Int64(buffer.count), max(length - offset, 0)))
        guard count > 0, let base = buffer.baseAddress else { return 0 }
        if fd < 0 {
            bytes.withUnsafeBytes { source in
                base.copyMemory(from: source.baseAddress! + Int(offset), byteCount: count)
            }
            return count
        }
        var done = 0
        while done < count {
            let n = pread(fd, base + done, count - done, off_t(offset) + off_t(done))
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return -1 }   // also the end of a file that shrank: never a short chunk
            done += n
        }
        return done
    }
}

/// Hashes an upload's bytes exactly once and in order, however often chunks are re-sent or
/// rewound: bytes before `hashedUpTo` are skipped, and a gap (bytes the server already had, for
/// example after resuming in a new process) is read from the source before the next chunk.
final class UploadChecksums: @unchecked Sendable {
    private(set) var crc32c = CRC32C()
    private(set) var md5: MD5?
    private(set) var hashedUpTo: Int64 = 0
    private let withMD5: Bool
    /// `hashedUpTo` and the CRC32C of those bytes, for `UploadSession` readers on any thread.
    private let readPrefix = Locked((bytes: Int64(0), crc32c: UInt32(0)))

    /// The length and CRC32C of the prefix read so far (any thread).
    var prefix: (bytes: Int64, crc32c: UInt32) { readPrefix.withLock { $0 } }

    init(withMD5: Bool) {
        self.withMD5 = withMD5
        md5 = withMD5 ? MD5() : nil
    }

    func reset() {
        crc32c = CRC32C()
        md5 = withMD5 ? MD5() : nil
        hashedUpTo = 0
        readPrefix.withLock { $0 = (0, 0) }
    }

    /// Called with bytes about to be sent from object offset `offset`.
    func observe(_ buffer: UnsafeRawBufferPointer, at offset: Int64) {
        let end = offset + Int64(buffer.count)
        guard offset <= hashedUpTo, end > hashedUpTo else { return }
        let fresh = UnsafeRawBufferPointer(rebasing: buffer[Int(hashedUpTo - offset)...])
        crc32c.update(fresh)
        md5?.update(fresh)
        hashedUpTo = end
        readPrefix.withLock { [crc = crc32c.value] in $0 = (end, crc) }
    }

    /// Hashes the source up to `offset` if it is not yet; false on a read error.
    func catchUp(_ source: UploadSource, to offset: Int64) -> Bool {
        guard hashedUpTo < offset else { return true }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
        defer { buffer.deallocate() }
        while hashedUpTo < offset {
            let want = Int(min(Int64(buffer.count), offset - hashedUpTo))
            let n = source.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[..<want]), at: hashedUpTo)
            guard n > 0 else { return false }
            observe(UnsafeRawBufferPointer(rebasing: buffer[..<n]), at: hashedUpTo)
        }
        return true
    }
}

/// One chunk of an upload as a request body: reads from the source and feeds the checksums.
final class ChunkBody: RequestBody, @unchecked Sendable {
    let length: Int64
    private let source: UploadSource
    private let start: Int64
    private let checksums: UploadChecksums

    init(source: UploadSource, start: Int64, length: Int64, checksums: UploadChecksums) {
        self.source = source
        self.start = start
        self.length = length
        self.checksums = checksums
    }

    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) -> Int {
        let want = Int(min(Int64(buffer.count), length - offset))
        guard want > 0 else { return 0 }
        let n = source.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[..<want]), at: start + offset)
        if n > 0 { checksums.observe(UnsafeRawBufferPointer(rebasing: buffer[..<n]), at: start + offset) }
        return n
    }
}
