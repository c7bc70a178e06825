import FBStorage
#if canImport(Glibc)
import Glibc
#endif

/// The C handle types, named as in the header.
enum HandleKind: String {
    case storage = "fbs_storage"
    case reference = "fbs_reference"
    case metadata = "fbs_metadata"
    case task = "fbs_task"
    case snapshot = "fbs_snapshot"
    case listResult = "fbs_list_result"
}

/// Which child handle a handle lends out: a list result lends one per item and prefix, so the
/// key is cheap to hash.
enum ChildKey: Hashable {
    case item(Int)
    case prefix(Int)
    case metadata
    case reference
}

/// What a C handle points at, plus the C strings and child handles lent out from it.
final class Handle: @unchecked Sendable {
    let kind: HandleKind
    /// Mutated only under the registry lock (metadata setters).
    var value: Any
    /// False for handles lent to a callback or owned by another handle: the caller cannot free them.
    let owned: Bool
    /// The C strings lent out, by key. A handle lends a few, so a list beats a dictionary (no
    /// hashing, no table to allocate): reading each item's path of a large listing costs less.
    var strings: [(key: String, copy: UnsafeMutablePointer<CChar>)] = []
    var children: [ChildKey: OpaquePointer] = [:]

    init(kind: HandleKind, value: Any, owned: Bool) {
        self.kind = kind
        self.value = value
        self.owned = owned
    }

    deinit {
        for string in strings { free(string.copy) }
    }
}

/// Every live handle, by its opaque pointer value. Handles are numbers, never addresses, and are
/// never reused: a released, foreign or wrong-type pointer is detected instead of dereferenced.
enum Handles {
    private struct Registry {
        var handles: [UInt: Handle] = [:]
        var nextID: UInt = 0x7FB5_0000_0000
    }
    private static let registry = Locked(Registry())

    static func make(_ kind: HandleKind, _ value: Any, owned: Bool = true) -> OpaquePointer {
        let handle = Handle(kind: kind, value: value, owned: owned)
        let id = registry.withLock { registry -> UInt in
            registry.nextID += 16
            registry.handles[registry.nextID] = handle
            return registry.nextID
        }
        return OpaquePointer(bitPattern: id)!
    }

    /// The value behind `pointer`, which must be a live handle of `kind` holding a `T`.
    static func value<T>(_ pointer: OpaquePointer?, _ kind: HandleKind, as type: T.Type = T.self) throws(StorageError) -> T {
        try withHandle(pointer, kind) { handle throws(StorageError) in
            guard let value = handle.value as? T else { throw StorageError(code: .internalError, message: "\(kind.rawValue) holds the wrong value") }
            return value
        }
    }

    /// Runs `body` under the registry lock with the live handle of `kind` at `pointer`.
    static func withHandle<R>(_ pointer: OpaquePointer?, _ kind: HandleKind,
                              _ body: (Handle) throws(StorageError) -> R) throws(StorageError) -> R {
        try registry.withLock { registry throws(StorageError) -> R in
            try body(try lookup(registry, pointer, kind))
        }
    }

    private static func lookup(_ registry: Registry, _ pointer: OpaquePointer?,
                               _ kind: HandleKind) throws(StorageError) -> Handle {
        guard let pointer else { throw StorageError(code: .invalidArgument, message: "The \(kind.rawValue) argument is NULL") }
        guard let handle = registry.handles[id(pointer)] else {
            throw StorageError(code: .invalidArgument, message: "Not a live \(kind.rawValue) handle (released, or never one)")
        }
        guard handle.kind == kind else {
            throw StorageError(code: .invalidArgument, message: "Expected a \(kind.rawValue) handle, got a \(handle.kind.rawValue)")
        }
        return handle
    }

    private static func id(_ pointer: OpaquePointer) -> UInt {
        UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(pointer)))
    }

    /// Releases an owned handle and the handles lent out from it. NULL is a no-op.
    static func release(_ pointer: OpaquePointer?, _ kind: HandleKind) throws(StorageError) {
        guard let pointer else { return }
        try withHandle(pointer, kind) { handle throws(StorageError) in
            guard handle.owned else {
                throw StorageError(code: .invalidArgument, message: "This \(kind.rawValue) is lent by the library and cannot be freed")
            }
        }
        releaseTree(pointer)
    }

    /// Releases a handle the library lent out (to a callback), whatever its ownership.
    static func releaseLent(_ pointer: OpaquePointer) {
        releaseTree(pointer)
    }

    private static func releaseTree(_ pointer: OpaquePointer) {
        // Handles are destroyed after the lock is dropped (their values may run deinit code).
        let removed = registry.withLock { registry -> [Handle] in
            var removed: [Handle] = []
            var pending = [id(pointer)]
            while let next = pending.popLast() {
                guard let handle = registry.handles.removeValue(forKey: next) else { continue }
                removed.append(handle)
                pending += handle.children.values.map(id)
            }
            return removed
        }
        _ = removed
    }

    /// A C string derived from the handle, cached under `key` until `invalidate` or release.
    static func string(_ pointer: OpaquePointer?, _ kind: HandleKind, key: String,
                       _ compute: (Any) -> String?) -> UnsafePointer<CChar>? {
        Errors.returning(nil) { () throws(StorageError) -> UnsafePointer<CChar>? in
            try withHandle(pointer, kind) { handle in
                if let cached = handle.strings.first(where: { $0.key == key }) { return UnsafePointer(cached.copy) }
                guard let string = compute(handle.value), let copy = ownedCString(string) else { return nil }
                handle.strings.append((key, copy))
                return UnsafePointer(copy)
            }
        }
    }

    /// A child handle lent out from the handle (a snapshot's reference, a list item), created
    /// once and released with its parent.
    static func child(_ pointer: OpaquePointer?, _ kind: HandleKind, key: ChildKey, childKind: HandleKind,
                      _ compute: (Any) -> Any?) -> OpaquePointer? {
        Errors.returning(nil) { () throws(StorageError) -> OpaquePointer? in
            try registry.withLock { registry throws(StorageError) -> OpaquePointer? in
                let parent = try lookup(registry, pointer, kind)
                if let cached = parent.children[key] { return cached }
                guard let value = compute(parent.value) else { return nil }
                registry.nextID += 16
                registry.handles[registry.nextID] = Handle(kind: childKind, value: value, owned: false)
                let child = OpaquePointer(bitPattern: registry.nextID)!
                parent.children[key] = child
                return child
            }
        }
    }

    /// Drops the cached strings whose key starts with `prefix`, after their source changed.
    static func invalidate(_ handle: Handle, prefix: String) {
        for string in handle.strings where string.key.hasPrefix(prefix) { free(string.copy) }
        handle.strings.removeAll { $0.key.hasPrefix(prefix) }
    }
}
