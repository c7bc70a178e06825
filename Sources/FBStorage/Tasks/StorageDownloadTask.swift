#if canImport(Glibc)
import Glibc
#endif

/// A download to a local file, observable like an upload.
///
/// Bytes go to a temporary file beside the destination, renamed over it on success, so a failure
/// or cancel never leaves a partial or clobbered destination. After a failure, pause or resume
/// the download continues with `Range` from the bytes already written: the retries of its one
/// `RetryingRequest` each ask for the rest. The object's CRC32C (from `x-goog-hash`) is checked
/// when the server sends one. State is touched only on the transfer thread.
public final class StorageDownloadTask: StorageTask, @unchecked Sendable {
    private let destination: String
    private let temporaryPath: String
    private let settings: StorageSettings
    private var fd: Int32
    private var written: Int64 = 0
    private var total: Int64 = -1
    private var crc32c = CRC32C()
    private var expectedCRC: String?
    private var request: RetryingRequest?
    private var paused = false
    private var ended = false

    init(reference: StorageReference, destination: String) throws(StorageError) {
        try reference.requireObject()
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
        settings = reference.storage.settings
        super.init(reference: reference, totalBytes: -1)
    }

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

    deinit {
        if fd >= 0 {
            close(fd)
            unlink(temporaryPath)
        }
    }

    // MARK: Lifecycle (transfer thread)

    override func startOnTransferThread() {
        emit(.resume, bytes: 0, total: total)
        sendRequest()
    }

    override func pauseOnTransferThread() {
        guard !ended, !paused else { return }
        paused = true
        abandonInFlight()
        emit(.pause, bytes: written, total: total)
    }

    override func resumeOnTransferThread() {
        guard !ended, paused else { return }
        paused = false
        emit(.resume, bytes: written, total: total)
        sendRequest()
    }

    override func cancelOnTransferThread() {
        fail(StorageError(code: .cancelled, message: "User cancelled the download of \(reference.path.gsURL)"))
    }

    // MARK: The request

    /// One retried GET streaming into the file; each attempt asks for the bytes not written yet.
    private func sendRequest() {
        let url = settings.endpoint.mediaURL(reference.path)
        let request = RetryingRequest(
            storage: storage, path: reference.path, settings: settings, retryTime: settings.maxDownloadRetryTime,
            options: .init(streaming: true, registered: false, speedCap: speedCap),
            hooks: .init(
                onResponseHead: { [self] status, headers in responseHead(status: status, headers: headers) },
                onBodyData: { [self] bytes in received(bytes) },
                classify: { [self] _, outcome in
                    guard case .success = outcome, total >= 0, written < total else { return outcome }
                    // The connection ended early: continue from here.
                    return .retry(cause: StorageError(code: .unknown, message: "The download ended after \(written) of \(total) bytes"),
                                  retryAfter: nil)
                }),
            build: { [self] _, auth in
                HTTPRequest(method: "GET", url: url, headers: written > 0 ? auth + [(name: "Range", value: "bytes=\(written)-")] : auth)
            },
            completion: { [self] result in
                self.request = nil
                switch result {
                case .success: succeed()
                case .failure(let error): fail(error, logged: true)
                }
            })
        self.request = request
        do { try request.start() } catch { fail(closedOr(error)) }
    }

    private func responseHead(status: Int, headers: HTTPHeaders) -> StorageError? {
        switch status {
        case 200:
            // A full body: start the file over (the server ignored or could not honour Range).
            if written > 0 {
                guard ftruncate(fd, 0) == 0 else { return writeError(errno) }
                written = 0
                crc32c = CRC32C()
            }
            total = headers.value("Content-Length").flatMap { Int64($0) } ?? -1
        case 206:
            // "bytes <first>-<last>/<size>": it must continue exactly where the file ends.
            guard let range = headers.value("Content-Range"), let rangeTotal = Self.parseContentRange(range, from: written) else {
                return StorageError(code: .unknown, message: "Download failed: the server answered with an unexpected range")
            }
            total = rangeTotal
        default:
            return nil
        }
        expectedCRC = headers.value("x-goog-hash").flatMap(Self.crc32cFromHashHeader)
        return nil
    }

    private func received(_ bytes: UnsafeRawBufferPointer) -> StorageError? {
        var done = 0
        while done < bytes.count {
            let n = pwrite(fd, bytes.baseAddress! + done, bytes.count - done, off_t(written) + off_t(done))
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return writeError(errno) }
            done += n
        }
        crc32c.update(bytes)
        written += Int64(bytes.count)
        emit(.progress, bytes: written, total: total)
        return nil
    }

    private func writeError(_ code: Int32) -> StorageError {
        StorageError(code: .unknown, message: "Download failed: cannot write \(temporaryPath): \(String(cString: strerror(code)))")
    }

    private func succeed() {
        if let expectedCRC, !crc32c.matches(server: expectedCRC) {
            return fail(StorageError(code: .nonMatchingChecksum,
                                     message: "The downloaded bytes' CRC32C \(crc32c.base64) differs from the server's \(expectedCRC)"))
        }
        guard fsync(fd) == 0, close(fd) == 0 else {
            return fail(StorageError(code: .unknown, message: "Cannot write \(temporaryPath): \(String(cString: strerror(errno)))"))
        }
        fd = -1
        guard rename(temporaryPath, destination) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporaryPath)
            return fail(StorageError(code: .unknown, message: "Cannot move the download to \(destination): \(reason)"))
        }
        ended = true
        emit(.progress, bytes: written, total: written, force: true)
        emit(.success, bytes: written, total: written)
    }

    /// Ends the task. `logged`: the failing request already logged the error.
    private func fail(_ error: StorageError, logged: Bool = false) {
        guard !ended else { return }
        ended = true
        if error.code != .cancelled && !logged { RetryLog.gaveUp(.object(reference.path), error) }
        abandonInFlight()
        if fd >= 0 {
            close(fd)
            unlink(temporaryPath)
            fd = -1
        }
        emit(.failure, bytes: written, total: total, error: error)
    }

    private func abandonInFlight() {
        request?.abandon()
        request = nil
    }

    // MARK: Header parsing

    /// The total size from `bytes <first>-<last>/<size>`, if `first` is `expectedStart`.
    static func parseContentRange(_ value: String, from expectedStart: Int64) -> Int64? {
        guard value.hasPrefix("bytes ") else { return nil }
        let parts = value.dropFirst(6).split(separator: "/")
        guard parts.count == 2, let first = parts[0].split(separator: "-").first.flatMap({ Int64($0) }),
              first == expectedStart else { return nil }
        return Int64(parts[1]) ?? -1
    }

    /// The `crc32c=<base64>` part of `x-goog-hash: crc32c=…,md5=…`.
    static func crc32cFromHashHeader(_ value: String) -> String? {
        for part in value.split(separator: ",") {
            let item = part.trimmingCharacters(in: " ")
            if item.hasPrefix("crc32c=") { return String(item.dropFirst(7)) }
        }
        return nil
    }
}

private extension Substring {
    func trimmingCharacters(in character: Character) -> Substring {
        var result = self
        while result.first == character { result = result.dropFirst() }
        while result.last == character { result = result.dropLast() }
        return result
    }
}
