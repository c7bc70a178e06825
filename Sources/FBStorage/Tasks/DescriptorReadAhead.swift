#if canImport(Glibc)
import Glibc
#endif

/// Reads a file descriptor (a pipe, a socket, stdin) on a thread of its own, at most `limit`
/// bytes ahead of the upload that takes them, so that reading the next chunk overlaps sending the
/// one on the wire (read whole on the transfer thread first, a pipe upload ran at 0.83× a file's).
/// The transfer thread takes bytes with `read(into:)`, which never blocks: it answers
/// `StreamUploadSource.notReady` when none has come yet, and `onReady` then runs, on the reader's
/// thread, once some have (or the end, or an error). Released, it stops its thread (a byte on a
/// pipe of its own wakes the thread's poll); the descriptor stays open, as the caller's.
final class DescriptorReadAhead: @unchecked Sendable {
    private let reader: Reader

    init(descriptor fd: Int32, limit: Int) throws(StorageError) {
        guard fcntl(fd, F_GETFL) >= 0 else {
            throw .invalidArgument("File descriptor \(fd) is not open (\(String(cString: strerror(errno))))")
        }
        var wake: [Int32] = [-1, -1]
        guard pipe(&wake) == 0 else {
            throw StorageError(code: .internalError, message: "cannot make a pipe for the reader (\(String(cString: strerror(errno))))")
        }
        for end in wake { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        reader = Reader(fd: fd, wake: (wake[0], wake[1]), limit: limit)
        let reader = self.reader
        let rc = DetachedThread.start { reader.run() }
        if rc != 0 {
            throw StorageError(code: .internalError, message: "cannot start the descriptor's reader (pthread_create: \(rc))")
        }
    }

    deinit { reader.stop() }

    /// Runs when bytes (or the end, or an error) arrive after `read(into:)` found none.
    func onReady(_ notify: @escaping @Sendable () -> Void) { reader.lock.withLock { reader.onReady = notify } }

    /// The bytes read so far, at most `buffer.count`; 0 at the end; `StreamUploadSource.notReady`
    /// when none has come yet.
    func read(into buffer: UnsafeMutableRawBufferPointer) -> Result<Int, StorageError> { reader.take(into: buffer) }
}

private final class Reader: @unchecked Sendable {
    static let piece = 256 << 10

    let lock = ConditionLock()
    let fd: Int32
    /// A pipe: `stop` writes a byte to its second end, which `run` polls with `fd`.
    let wake: (read: Int32, write: Int32)
    let limit: Int
    // Under `lock`: the bytes read and not taken (`count` of them from `head`), how the reading
    // ended, and whether the transfer thread found nothing and waits for `onReady`.
    private let queue: UnsafeMutableRawPointer
    private var head = 0
    private var count = 0
    private var ended = false
    private var failure: StorageError?
    private var stopped = false
    /// How many bytes the transfer thread waits for (0: it does not wait): it is told when that
    /// many are here (or as many as fit), or at the end, not for every piece read.
    private var waitingFor = 0
    var onReady: (@Sendable () -> Void)?

    init(fd: Int32, wake: (Int32, Int32), limit: Int) {
        (self.fd, self.wake, self.limit) = (fd, wake, limit)
        queue = .allocate(byteCount: limit, alignment: 16)
    }

    deinit {
        close(wake.read)   // here, not when `run` returns: `stop` may still write to it
        close(wake.write)
        queue.deallocate()
    }

    func run() {
        let piece = UnsafeMutableRawPointer.allocate(byteCount: Self.piece, alignment: 16)
        defer { piece.deallocate() }
        while true {
            var room = 0
            _ = lock.wait(until: nil) {
                room = limit - count
                return stopped || room > 0
            }
            if lock.withLock({ stopped }) { return }
            var ready = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0), pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0)]
            if poll(&ready, 2, -1) < 0 {
                if errno == EINTR { continue }
                return end(.failure(StorageError(code: .unknown, message: "Cannot wait for file descriptor \(fd): \(String(cString: strerror(errno)))")))
            }
            if ready[1].revents != 0 { return }
            let n = Glibc.read(fd, piece, min(Self.piece, room))
            if n < 0 {
                if errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK { continue }
                return end(.failure(StorageError(code: .unknown, message: "Cannot read file descriptor \(fd): \(String(cString: strerror(errno)))")))
            }
            if n == 0 { return end(.success(())) }
            let notify = lock.withLock { () -> (@Sendable () -> Void)? in
                if head + count + n > limit {
                    queue.copyMemory(from: queue + head, byteCount: count)
                    head = 0
                }
                (queue + head + count).copyMemory(from: piece, byteCount: n)
                count += n
                return count >= waitingFor ? takeWaiter() : nil
            }
            notify?()
        }
    }

    func take(into buffer: UnsafeMutableRawBufferPointer) -> Result<Int, StorageError> {
        let result = lock.withLock { () -> Result<Int, StorageError> in
            if count > 0, let base = buffer.baseAddress {
                let n = min(buffer.count, count)
                base.copyMemory(from: queue + head, byteCount: n)
                head = count == n ? 0 : head + n
                count -= n
                return .success(n)
            }
            if let failure { return .failure(failure) }
            if ended { return .success(0) }
            waitingFor = min(buffer.count, limit)
            return .success(StreamUploadSource.notReady)
        }
        if case .success(let n) = result, n > 0 { lock.broadcast() }   // room for the reader
        return result
    }

    func stop() {
        lock.withLock { stopped = true }
        lock.broadcast()
        var one: UInt8 = 1
        _ = Glibc.write(wake.write, &one, 1)
    }

    private func end(_ outcome: Result<Void, StorageError>) {
        let notify = lock.withLock { () -> (@Sendable () -> Void)? in
            ended = true
            if case .failure(let error) = outcome { failure = error }
            return takeWaiter()
        }
        notify?()
    }

    /// Under `lock`: `onReady` if the transfer thread waits for it (it waits no more).
    private func takeWaiter() -> (@Sendable () -> Void)? {
        defer { waitingFor = 0 }
        return waitingFor > 0 ? onReady : nil
    }
}
