#if canImport(Glibc)
import Glibc
#endif

/// Reading a small file (a session, a key) whole, with its failure as words.
enum SmallFile {
    enum Failure: Error {
        case missing
        case unreadable(String)
        case tooLarge
    }

    /// The file's bytes; fails past `limit` bytes.
    static func read(_ path: String, limit: Int) throws(Failure) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        if fd < 0 {
            if errno == ENOENT { throw .missing }
            throw .unreadable(String(cString: strerror(errno)))
        }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n >= 0 else { throw .unreadable(String(cString: strerror(errno))) }
            if n == 0 { return bytes }
            bytes += buffer[0..<n]
            guard bytes.count <= limit else { throw .tooLarge }
        }
    }
}
