#if canImport(Glibc)
import Glibc
#endif

/// Where a `StorageDownloadTask` puts the bytes it receives, in order and each byte once. All
/// calls come from the transfer thread.
protocol DownloadSink: AnyObject {
    /// Takes the next bytes; an error stops the download with it.
    func write(_ bytes: UnsafeRawBufferPointer) -> StorageError?
    /// The range holds `count` bytes (known once the first answer arrived); an error stops the
    /// download before a byte is written.
    func expect(_ count: Int64) -> StorageError?
    /// Every byte arrived and was checked; an error fails the download instead.
    func finish() -> StorageError?
    /// The download failed or was cancelled.
    func discard()
}

extension DownloadSink {
    func expect(_ count: Int64) -> StorageError? { nil }
    func finish() -> StorageError? { nil }
    func discard() {}
}

/// Hands each block to a caller's function (the C API's sink callback).
final class CallbackSink: DownloadSink, @unchecked Sendable {
    private let take: (UnsafeRawBufferPointer) -> StorageError?

    init(_ take: @escaping (UnsafeRawBufferPointer) -> StorageError?) {
        self.take = take
    }

    func write(_ bytes: UnsafeRawBufferPointer) -> StorageError? { take(bytes) }
}

/// Copies the bytes into a caller's buffer of `capacity` bytes, which must hold the whole range.
final class MemorySink: DownloadSink, @unchecked Sendable {
    private let base: UnsafeMutableRawPointer?
    private let capacity: Int
    private(set) var count = 0

    init(base: UnsafeMutableRawPointer?, capacity: Int) {
        self.base = base
        self.capacity = capacity
    }

    func expect(_ count: Int64) -> StorageError? {
        guard count > Int64(capacity) else { return nil }
        return StorageError(code: .downloadSizeExceeded, message: "The range holds \(count) bytes; the buffer holds \(capacity)")
    }

    func write(_ bytes: UnsafeRawBufferPointer) -> StorageError? {
        guard bytes.count <= capacity - count else {
            return StorageError(code: .downloadSizeExceeded, message: "The download is larger than the buffer's \(capacity) bytes")
        }
        if let source = bytes.baseAddress, let base { (base + count).copyMemory(from: source, byteCount: bytes.count) }
        count += bytes.count
        return nil
    }
}

/// Appends the bytes to a `ByteBuffer` (ranged `getData`), at most `maxSize` of them.
final class BufferSink: DownloadSink, @unchecked Sendable {
    let buffer = ByteBuffer()
    private let maxSize: Int64
    private let path: StoragePath

    init(maxSize: Int64, path: StoragePath) {
        self.maxSize = maxSize
        self.path = path
    }

    private var tooLarge: StorageError {
        StorageError(code: .downloadSizeExceeded, message: "The range of \(path.gsURL) is larger than the maximum size of \(maxSize) bytes")
    }

    func expect(_ count: Int64) -> StorageError? {
        if count > maxSize { return tooLarge }
        return buffer.reserve(Int(count)) ? nil : StorageError(code: .internalError, message: "Out of memory for \(count) bytes")
    }

    func write(_ bytes: UnsafeRawBufferPointer) -> StorageError? {
        if Int64(buffer.count + bytes.count) > maxSize { return tooLarge }
        return buffer.append(bytes) ? nil : StorageError(code: .internalError, message: "Out of memory for the bytes of \(path.gsURL)")
    }
}

/// Writes the bytes to an open file descriptor the caller keeps (a pipe, a socket, a file at
/// its current offset); a non-blocking one is waited for with poll(2). A reader that went away
/// is an EPIPE error, not a SIGPIPE that would end the caller's process.
final class DescriptorSink: DownloadSink, @unchecked Sendable {
    private let fd: Int32

    init(fd: Int32) throws(StorageError) {
        guard fcntl(fd, F_GETFL) >= 0 else {
            throw .invalidArgument("File descriptor \(fd) is not open (\(String(cString: strerror(errno))))")
        }
        self.fd = fd
    }

    func write(_ bytes: UnsafeRawBufferPointer) -> StorageError? {
        withSIGPIPEBlocked { writeAll(bytes) }
    }

    private func writeAll(_ bytes: UnsafeRawBufferPointer) -> StorageError? {
        var done = 0
        while done < bytes.count {
            let n = Glibc.write(fd, bytes.baseAddress! + done, bytes.count - done)
            if n < 0 && errno == EINTR { continue }
            if n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) {
                var waiting = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                _ = poll(&waiting, 1, -1)
                continue
            }
            guard n > 0 else {
                return StorageError(code: .unknown, message: "Download failed: cannot write to file descriptor \(fd): \(String(cString: strerror(errno)))")
            }
            done += n
        }
        return nil
    }
}

/// Runs `body` with SIGPIPE blocked on this thread; one that `body` raised is taken before the
/// mask is restored, so it is never delivered.
private func withSIGPIPEBlocked<T>(_ body: () -> T) -> T {
    var pipeOnly = sigset_t()
    sigemptyset(&pipeOnly)
    sigaddset(&pipeOnly, SIGPIPE)
    var previous = sigset_t()
    pthread_sigmask(SIG_BLOCK, &pipeOnly, &previous)
    defer {
        var pending = sigset_t()
        if sigismember(&previous, SIGPIPE) == 0, sigpending(&pending) == 0, sigismember(&pending, SIGPIPE) == 1 {
            var now = timespec()
            _ = sigtimedwait(&pipeOnly, nil, &now)
        }
        pthread_sigmask(SIG_SETMASK, &previous, nil)
    }
    return body()
}

/// Writes to a temporary file beside the destination, renamed over it by `finish`, so a failure
/// or cancel never leaves a partial or clobbered destination.
final class FileSink: DownloadSink, @unchecked Sendable {
    private let destination: String
    private let temporaryPath: String
    private var fd: Int32
    private var written: Int64 = 0

    init(destination: String) throws(StorageError) {
        guard !destination.isEmpty else {
            throw StorageError(code: .invalidArgument, message: "The destination path is empty")
        }
        let mode = try Self.permissions(for: destination)
        let directory = destination.lastIndex(of: "/").map { String(destination[...$0]) } ?? "./"
        let base = destination.split(separator: "/").last.map(String.init) ?? "download"
        var template = Array("\(directory).\(base).fbsdownload-XXXXXX".utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else {
            throw StorageError(code: .unknown,
                               message: "Cannot create a temporary file beside \(destination) (\(String(cString: strerror(errno))))")
        }
        temporaryPath = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        guard fchmod(fd, mode) == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            unlink(temporaryPath)
            throw StorageError(code: .unknown, message: "Cannot set the permissions of a temporary file beside \(destination) (\(reason))")
        }
        self.fd = fd
        self.destination = destination
    }

    deinit { discard() }

    /// The permission bits the downloaded file gets: a new file's are `0666 & ~umask`, as open(2)
    /// gives; a replaced file keeps its own. A file that is read-only (no write bit, or one the
    /// caller may not write) is refused rather than replaced: a download never makes a read-only
    /// file writable, nor replaces what the caller could not overwrite in place.
    private static func permissions(for destination: String) throws(StorageError) -> mode_t {
        var info = stat()
        guard stat(destination, &info) == 0 else {
            guard errno == ENOENT else {
                throw StorageError(code: .unknown, message: "Cannot write \(destination) (\(String(cString: strerror(errno))))")
            }
            return 0o666 & ~currentUmask()
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            throw StorageError(code: .unknown, message: "Cannot write \(destination): it exists and is not a regular file")
        }
        guard info.st_mode & 0o222 != 0, access(destination, W_OK) == 0 else {
            throw StorageError(code: .unknown, message: "Cannot replace \(destination): the file is read-only; it is left as it is")
        }
        return info.st_mode & 0o777
    }

    /// The process's umask, read without changing it (`umask(2)` can only set it, and setting it
    /// to read it would race other threads creating files): the `Umask:` line of
    /// /proc/self/status (Linux 4.7+), else the usual 022.
    private static func currentUmask() -> mode_t {
        guard let file = fopen("/proc/self/status", "r") else { return 0o022 }
        defer { fclose(file) }
        var line = [CChar](repeating: 0, count: 256)
        while fgets(&line, Int32(line.count), file) != nil {
            let text = String(cString: line)
            if text.hasPrefix("Umask:"), let mask = mode_t(String(text.dropFirst(6)).trimmingASCIIWhitespace(), radix: 8) {
                return mask
            }
        }
        return 0o022
    }

    func write(_ bytes: UnsafeRawBufferPointer) -> StorageError? {
        var done = 0
        while done < bytes.count {
            let n = pwrite(fd, bytes.baseAddress! + done, bytes.count - done, off_t(written) + off_t(done))
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return writeError(errno) }
            done += n
        }
        written += Int64(bytes.count)
        return nil
    }

    private func writeError(_ code: Int32) -> StorageError {
        StorageError(code: .unknown, message: "Download failed: cannot write \(temporaryPath): \(String(cString: strerror(code)))")
    }

    func finish() -> StorageError? {
        guard fsync(fd) == 0, close(fd) == 0 else {
            return StorageError(code: .unknown, message: "Cannot write \(temporaryPath): \(String(cString: strerror(errno)))")
        }
        fd = -1
        guard rename(temporaryPath, destination) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporaryPath)
            return StorageError(code: .unknown, message: "Cannot move the download to \(destination): \(reason)")
        }
        return nil
    }

    func discard() {
        guard fd >= 0 else { return }
        close(fd)
        unlink(temporaryPath)
        fd = -1
    }
}
