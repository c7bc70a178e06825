#if canImport(Glibc)
import Glibc
#endif

/// A growable buffer whose bytes can be handed over without a copy: `getData` streams a body
/// into one. Its memory is malloc'd (the C API returns it for `fbs_data_free`, i.e. free(3)) or,
/// with a `MemoryAllocator`, the caller's own (Python's `bytes`), so that nothing copies the body
/// again after the socket's bytes land in it.
///
/// Filling new memory costs a page fault per page, and in a VM those faults were most of a large
/// `getData`'s CPU: 1.8 s of system time per 256 MiB when the body was an array copied into
/// malloc'd memory. One buffer halves that, and populating the pages ahead of the writes in
/// steps (`MADV_POPULATE_WRITE`, one system call per 8 MiB instead of a fault per 4 KiB) takes
/// another third off the filling (0.15 → 0.09 s per 256 MiB here). Transparent huge pages were
/// measured too: 0.07 s when free huge pages were at hand but 0.6 s when the kernel had to
/// compact memory for them (see benchmarks/README.md). Touched by one thread at a time.
public final class ByteBuffer: @unchecked Sendable {
    public private(set) var count = 0
    private var capacity = 0
    private var base: UnsafeMutableRawPointer?
    /// `base` came from `allocator` (sized exactly for an announced length) rather than malloc.
    private var fromAllocator = false
    /// Bytes from `base` whose pages are known to be populated.
    private var populated = 0
    private let allocator: MemoryAllocator?

    init(allocator: MemoryAllocator? = nil) {
        self.allocator = allocator
    }

    deinit { release() }

    /// The bytes, copied into an array.
    public var bytes: [UInt8] {
        withUnsafeBytes { Array($0) }
    }

    /// Lends the bytes for the duration of `body`.
    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try body(UnsafeRawBufferPointer(start: base, count: count))
    }

    /// Hands the memory over, and this buffer is empty afterwards. Without an allocator the caller
    /// releases it with free(3), and an empty buffer hands over one allocated byte; with one, it
    /// is memory from `allocator.allocate(count)` (nil only if that answered nil for 0 bytes).
    /// Nil when memory ran out.
    public func take() -> (bytes: UnsafeMutableRawPointer?, count: Int)? {
        if let allocator, !(fromAllocator && count == capacity) {
            // The length was not announced, or not this one: one copy into memory of the right size.
            let exact = allocator.allocate(count)
            guard exact != nil || count == 0 else {
                discard()
                return nil
            }
            if count > 0, let base { exact!.copyMemory(from: base, byteCount: count) }
            release()
            (base, capacity, fromAllocator) = (exact, count, true)
        } else if allocator == nil {
            guard base != nil || reserve(1) else { return nil }
        }
        defer { (base, count, capacity, populated, fromAllocator) = (nil, 0, 0, 0, false) }
        return (base, count)
    }

    /// Makes room for `total` bytes in all (a body's announced length); false when memory ran out.
    func reserve(_ total: Int) -> Bool {
        guard total > capacity else { return true }
        if let allocator, count == 0 {
            release()
            guard let memory = allocator.allocate(total) else { return false }
            (base, capacity, fromAllocator) = (memory, total, true)
            return true
        }
        return grow(to: total)
    }

    /// Appends `bytes`, growing by doubling; false when memory ran out.
    func append(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let source = bytes.baseAddress, bytes.count > 0 else { return true }
        guard count + bytes.count <= capacity || grow(to: max(count + bytes.count, capacity * 2, 64 << 10)) else { return false }
        populate(through: count + bytes.count)
        (base! + count).copyMemory(from: source, byteCount: bytes.count)
        count += bytes.count
        return true
    }

    /// Forgets the bytes, keeping the memory.
    func removeAll() {
        count = 0
    }

    /// Gives the memory back now (to the allocator, whose owner may be gone once the download
    /// reported its end), not whenever the last reference to this buffer goes.
    func discard() {
        release()
        count = 0
    }

    /// Moves the bytes into larger malloc'd memory (an allocator's memory is only ever the exact
    /// announced length; what outgrows it is copied into the allocator's memory once, by `take`).
    private func grow(to total: Int) -> Bool {
        if fromAllocator {
            guard let grown = malloc(total) else { return false }
            if count > 0 { grown.copyMemory(from: base!, byteCount: count) }
            release()
            (base, capacity) = (grown, total)
            return true
        }
        guard let grown = realloc(base, total) else { return false }
        if grown != base { populated = 0 }
        (base, capacity) = (grown, total)
        return true
    }

    private static let populateStep = 8 << 20
    private static let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))

    /// Populates the pages of the next step once the writes reach them, for buffers of a step or
    /// more. A kernel without MADV_POPULATE_WRITE (before 5.14) refuses it, and the pages then
    /// fault in one by one as before.
    private func populate(through end: Int) {
        guard end > populated, capacity >= Self.populateStep, let base else { return }
        let page = Self.pageSize
        let from = (Int(bitPattern: base) + populated + page - 1) / page * page
        let to = (Int(bitPattern: base) + min(capacity, max(end, populated + Self.populateStep))) / page * page
        populated = min(capacity, max(end, populated + Self.populateStep))
        if to > from { _ = madvise(UnsafeMutableRawPointer(bitPattern: from), to - from, madvisePopulateWrite) }
    }

    private func release() {
        if let base { fromAllocator ? allocator!.release(base) : free(base) }
        (base, capacity, populated, fromAllocator) = (nil, 0, 0, false)
    }
}

/// MADV_POPULATE_WRITE (Linux 5.14), which Glibc's headers here may predate.
private let madvisePopulateWrite: Int32 = 23

/// Memory for a download's bytes from the caller (the C API's `fbs_allocator`): `allocate` is
/// asked for the body's exact length, `release` takes back what the library does not hand over
/// (a failed download, a retry whose body has another length). Both run on the transfer thread.
public struct MemoryAllocator: @unchecked Sendable {
    let allocate: (Int) -> UnsafeMutableRawPointer?
    let release: (UnsafeMutableRawPointer) -> Void

    public init(allocate: @escaping (Int) -> UnsafeMutableRawPointer?, release: @escaping (UnsafeMutableRawPointer) -> Void) {
        self.allocate = allocate
        self.release = release
    }
}
