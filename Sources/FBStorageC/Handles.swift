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
    case auth = "fbs_auth"
    case user = "fbs_user"
    case credential = "fbs_credential"
    case actionCodeSettings = "fbs_action_code_settings"
    case tokenRequest = "fbs_token_request"
    case serviceAccount = "fbs_service_account"
    case appCheck = "fbs_app_check"
    case appCheckRequest = "fbs_app_check_request"
}

/// A core type that C handles hold: each is the value of exactly one handle kind.
protocol CHandled {
    static var handleKind: HandleKind { get }
}

extension Storage: CHandled { static var handleKind: HandleKind { .storage } }
extension StorageReference: CHandled { static var handleKind: HandleKind { .reference } }
extension StorageMetadata: CHandled { static var handleKind: HandleKind { .metadata } }
extension StorageTask: CHandled { static var handleKind: HandleKind { .task } }
extension StorageTaskSnapshot: CHandled { static var handleKind: HandleKind { .snapshot } }
extension StorageListResult: CHandled { static var handleKind: HandleKind { .listResult } }
extension Auth: CHandled { static var handleKind: HandleKind { .auth } }
extension AuthUser: CHandled { static var handleKind: HandleKind { .user } }
extension AuthCredential: CHandled { static var handleKind: HandleKind { .credential } }
extension ActionCodeSettings: CHandled { static var handleKind: HandleKind { .actionCodeSettings } }
extension TokenRequest: CHandled { static var handleKind: HandleKind { .tokenRequest } }
extension ServiceAccountCredentials: CHandled { static var handleKind: HandleKind { .serviceAccount } }
extension AppCheck: CHandled { static var handleKind: HandleKind { .appCheck } }
extension AppCheckTokenRequest: CHandled { static var handleKind: HandleKind { .appCheckRequest } }

/// Which C string a handle lends out. Borrowed until the handle is released, or until the
/// metadata field it shows changes.
enum StringKey: Equatable {
    case bucket, name, fullPath
    case cacheControl, contentDisposition, contentEncoding, contentLanguage, contentType, md5Hash, crc32c
    case custom(String), customKey(Int)
    case errorMessage, serverResponse
    case itemPaths, prefixPaths, pageToken
    case uid, email, displayName, photoURL, signInProvider, idToken, refreshToken, claims
    case additionalProviderID, additionalProfileJSON, additionalUsername
    case projectID, downloadToken(Int)
    case providerField(index: Int, name: String)

    /// Strings of custom metadata: any change of the custom metadata replaces them all.
    var isCustomMetadata: Bool {
        switch self {
        case .custom, .customKey: true
        default: false
        }
    }
}

/// Which child handle a handle lends out: a list result lends one per item and prefix, so the
/// key is cheap to hash.
enum ChildKey: Hashable {
    case item(Int)
    case prefix(Int)
    case itemMetadata(Int)
    case metadata
    case reference
}

/// What every C handle has, whatever its value: the C strings and child handles lent out from it.
class AnyHandle: @unchecked Sendable {
    let kind: HandleKind
    /// False for handles lent to a callback or owned by another handle: the caller cannot free them.
    let owned: Bool
    /// A handle lends a few strings, so a list beats a dictionary (no hashing, no table to
    /// allocate): reading each item's path of a large listing costs less.
    var strings: [(key: StringKey, copy: UnsafeMutablePointer<CChar>)] = []
    var children: [ChildKey: OpaquePointer] = [:]

    init(kind: HandleKind, owned: Bool) {
        self.kind = kind
        self.owned = owned
    }

    deinit {
        for string in strings { free(string.copy) }
    }

    /// Releases the lent strings `isStale` selects, after the value they show changed.
    func releaseStrings(where isStale: (StringKey) -> Bool) {
        for string in strings where isStale(string.key) { free(string.copy) }
        strings.removeAll { isStale($0.key) }
    }
}

/// A C handle holding a `Value`. The value changes only under the registry lock (metadata setters).
final class Handle<Value: CHandled>: AnyHandle, @unchecked Sendable {
    var value: Value

    init(_ value: Value, owned: Bool) {
        self.value = value
        super.init(kind: Value.handleKind, owned: owned)
    }
}

/// Every live handle, by its opaque pointer value. Handles are numbers, never addresses, and are
/// never reused: a released, foreign or wrong-type pointer is detected instead of dereferenced.
enum Handles {
    fileprivate struct Registry {
        var handles: [UInt: AnyHandle] = [:]
        var lastID: UInt = 0x7FB5_0000_0000

        /// The one place handle ids are minted.
        mutating func add(_ handle: AnyHandle) -> OpaquePointer {
            lastID += 16
            handles[lastID] = handle
            return OpaquePointer(bitPattern: lastID)!
        }

        func lookup<Value: CHandled>(_ pointer: OpaquePointer?) throws(StorageError) -> Handle<Value> {
            let kind = Value.handleKind.rawValue
            guard let pointer else { throw StorageError(code: .invalidArgument, message: "The \(kind) argument is NULL") }
            guard let handle = handles[Handles.id(pointer)] else {
                throw StorageError(code: .invalidArgument, message: "Not a live \(kind) handle (released, or never one)")
            }
            guard let typed = handle as? Handle<Value> else {
                throw StorageError(code: .invalidArgument, message: "Expected a \(kind) handle, got a \(handle.kind.rawValue)")
            }
            return typed
        }
    }
    fileprivate static let registry = Locked(Registry())

    private static func id(_ pointer: OpaquePointer) -> UInt {
        UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(pointer)))
    }

    /// A new handle holding `value`: the caller's to free, unless the library lends it.
    static func make<Value: CHandled>(_ value: Value, owned: Bool = true) -> OpaquePointer {
        let handle = Handle(value, owned: owned)
        return registry.withLock { $0.add(handle) }
    }

    /// Lends a handle holding `value` (NULL for nil) for the duration of a callback.
    static func lend<Value: CHandled>(_ value: Value?, _ body: (OpaquePointer?) -> Void) {
        guard let value else { return body(nil) }
        let lent = make(value, owned: false)
        body(lent)
        releaseTree(lent)
    }

    /// Runs `body` under the registry lock with the live handle of `Value`'s kind at `pointer`.
    static func withHandle<Value: CHandled, R>(_ pointer: OpaquePointer?,
                                               _ body: (Handle<Value>) throws(StorageError) -> R) throws(StorageError) -> R {
        try registry.withLock { registry throws(StorageError) -> R in try body(registry.lookup(pointer)) }
    }

    /// Releases an owned handle and the handles lent out from it; returns its value (nil for NULL).
    static func release<Value: CHandled>(_ pointer: OpaquePointer?) throws(StorageError) -> Value? {
        guard let pointer else { return nil }
        let value = try withHandle(pointer) { (handle: Handle<Value>) throws(StorageError) in
            guard handle.owned else {
                throw StorageError(code: .invalidArgument, message: "This \(handle.kind.rawValue) is lent by the library and cannot be freed")
            }
            return handle.value
        }
        releaseTree(pointer)
        return value
    }

    /// Releases a handle the library lent out until an event of its own (a token request's answer).
    static func releaseLent(_ pointer: OpaquePointer?) {
        if let pointer { releaseTree(pointer) }
    }

    private static func releaseTree(_ pointer: OpaquePointer) {
        // Handles are destroyed after the lock is dropped (their values may run deinit code).
        let removed = registry.withLock { registry -> [AnyHandle] in
            var removed: [AnyHandle] = []
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
}

/// The exports' view of the registry: each core type finds its own handles.
extension CHandled {
    /// The value behind `pointer`, which must be a live handle of this type's kind.
    static func behind(_ pointer: OpaquePointer?) throws(StorageError) -> Self {
        try Handles.withHandle(pointer) { (handle: Handle<Self>) in handle.value }
    }

    /// A C string computed once from the value behind `pointer` and lent until the handle is
    /// released (or `releaseStrings`); NULL when `compute` gives nil, or on a bad handle (with
    /// the last error set).
    static func lentString(_ pointer: OpaquePointer?, _ key: StringKey, _ compute: (Self) -> String?) -> UnsafePointer<CChar>? {
        Errors.returning(nil) { () throws(StorageError) -> UnsafePointer<CChar>? in
            try Handles.withHandle(pointer) { (handle: Handle<Self>) in
                if let cached = handle.strings.first(where: { $0.key == key }) { return UnsafePointer(cached.copy) }
                guard let string = compute(handle.value), let copy = ownedCString(string) else { return nil }
                handle.strings.append((key, copy))
                return UnsafePointer(copy)
            }
        }
    }

    /// A child handle lent out from the handle at `pointer` (a snapshot's reference, a list
    /// item), created once and released with its parent; NULL on a bad handle or no child.
    static func lentChild<Child: CHandled>(_ pointer: OpaquePointer?, _ key: ChildKey,
                                           _ compute: (Self) -> Child?) -> OpaquePointer? {
        Errors.returning(nil) { () throws(StorageError) -> OpaquePointer? in
            try Handles.registry.withLock { registry throws(StorageError) -> OpaquePointer? in
                let parent: Handle<Self> = try registry.lookup(pointer)
                if let cached = parent.children[key] { return cached }
                guard let value = compute(parent.value) else { return nil }
                let child = registry.add(Handle(value, owned: false))
                parent.children[key] = child
                return child
            }
        }
    }

    /// A *_free export: releases an owned handle; NULL is a no-op; misuse sets the last error.
    static func free(_ pointer: OpaquePointer?) {
        _ = Errors.status { () throws(StorageError) in _ = try Handles.release(pointer) as Self? }
    }
}
