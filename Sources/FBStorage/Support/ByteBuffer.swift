#if canImport(Glibc)
import Glibc
#endif

/// A growable buffer in malloc'd memory whose bytes can be handed over without a copy: `getData`
/// streams a body into one, and the C API returns that memory for `fbs_data_free` (free(3)).
///
/// Filling new memory costs a page fault per page, and in a VM those faults were most of a large
/// `getData`'s CPU: 1.8 s of system time per 256 MiB when the body was an array copied into
/// malloc'd memory. One buffer halves that. (Transparent huge pages were measured too: 0.07 s
/// when free huge pages were at hand but 0.6 s when the kernel had to compact memory for them,
/// against a steady 0.25 s with 4 KiB pages, as `curl -o` takes; see benchmarks/README.md.)
/// Touched by one thread at a time.
public final class ByteBuffer: @unchecked Sendable {
    public private(set) var count = 0
    private var capacity = 0
    private var base: UnsafeMutableRawPointer?

    init() {}

    deinit { free(base) }

    /// The bytes, copied into an array.
    public var bytes: [UInt8] {
        withUnsafeBytes { Array($0) }
    }

    /// Lends the bytes for the duration of `body`.
    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try body(UnsafeRawBufferPointer(start: base, count: count))
    }

    /// Hands the memory over: the caller releases it with free(3), and this buffer is empty
    /// afterwards. An empty buffer hands over one allocated byte. Nil when memory ran out.
    public func take() -> (bytes: UnsafeMutableRawPointer, count: Int)? {
        guard base != nil || reserve(1) else { return nil }
        defer { (base, count, capacity) = (nil, 0, 0) }
        return (base!, count)
    }

    /// Makes room for `total` bytes in all; false when memory ran out.
    func reserve(_ total: Int) -> Bool {
        guard total > capacity else { return true }
        guard let grown = realloc(base, total) else { return false }
        (base, capacity) = (grown, total)
        return true
    }

    /// Appends `bytes`, growing by doubling; false when memory ran out.
    func append(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let source = bytes.baseAddress, bytes.count > 0 else { return true }
        guard count + bytes.count <= capacity || reserve(max(count + bytes.count, capacity * 2, 64 << 10)) else { return false }
        (base! + count).copyMemory(from: source, byteCount: bytes.count)
        count += bytes.count
        return true
    }

    /// Forgets the bytes, keeping the memory.
    func removeAll() {
        count = 0
    }
}
