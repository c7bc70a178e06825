import FBStorage
#if canImport(Glibc)
import Glibc
#endif

// Blocking and _async forms of the reference operations. An async completion gets borrowed
// arguments and, on failure, the error is recorded on the callback thread first so the callback
// can read fbs_last_error_message().

public typealias fbs_completion_callback = @convention(c) (Int32, UnsafeMutableRawPointer?) -> Void
public typealias fbs_metadata_callback = @convention(c) (Int32, OpaquePointer?, UnsafeMutableRawPointer?) -> Void
public typealias fbs_list_callback = @convention(c) (Int32, OpaquePointer?, UnsafeMutableRawPointer?) -> Void
public typealias fbs_string_callback = @convention(c) (Int32, UnsafePointer<CChar>?, UnsafeMutableRawPointer?) -> Void
public typealias fbs_data_callback = @convention(c) (Int32, UnsafeRawPointer?, Int, UnsafeMutableRawPointer?) -> Void

private func reference(_ pointer: OpaquePointer?) throws(StorageError) -> StorageReference {
    try Handles.value(pointer, .reference, as: StorageReference.self)
}

/// Starts an async operation whose callback receives `deliver(result)`'s status and value.
private func startAsync<T: Sendable>(_ callback: UnsafeRawPointer?, _ start: (@escaping StorageCompletion<T>) throws(StorageError) -> Void,
                                     deliver: @escaping @Sendable (Result<T, StorageError>) -> Void) -> Int32 {
    Errors.status { () throws(StorageError) in
        guard callback != nil else { throw StorageError(code: .invalidArgument, message: "The callback is NULL") }
        try start { result in
            if case .failure(let error) = result { Errors.record(error) }
            deliver(result)
        }
    }
}

private func code<T>(_ result: Result<T, StorageError>) -> Int32 {
    switch result {
    case .success: return 0
    case .failure(let error): return error.code.rawValue
    }
}

/// Lends a handle for the duration of a callback.
private func lending<T>(_ kind: HandleKind, _ value: T?, _ body: (OpaquePointer?) -> Void) {
    guard let value else { return body(nil) }
    let lent = Handles.make(kind, value, owned: false)
    body(lent)
    Handles.releaseLent(lent)
}

// MARK: Metadata

@_cdecl("fbs_reference_get_metadata")
public func fbs_reference_get_metadata(_ r: OpaquePointer?, _ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    Errors.status { () throws(StorageError) in
        let out = try Arguments.out(out)
        out.pointee = Handles.make(.metadata, try reference(r).getMetadata())
    }
}

@_cdecl("fbs_reference_get_metadata_async")
public func fbs_reference_get_metadata_async(_ r: OpaquePointer?, _ cb: fbs_metadata_callback?, _ userData: UnsafeMutableRawPointer?) -> Int32 {
    let userData = UserData(pointer: userData)
    return startAsync(unsafeBitCast(cb, to: UnsafeRawPointer?.self), { done throws(StorageError) in try reference(r).getMetadata(completion: done) }) { result in
        lending(.metadata, try? result.get()) { cb?(code(result), $0, userData.pointer) }
    }
}

@_cdecl("fbs_reference_update_metadata")
public func fbs_reference_update_metadata(_ r: OpaquePointer?, _ changes: OpaquePointer?, _ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    Errors.status { () throws(StorageError) in
        let out = try Arguments.out(out)
        let changes = try Handles.value(changes, .metadata, as: StorageMetadata.self)
        out.pointee = Handles.make(.metadata, try reference(r).updateMetadata(changes))
    }
}

@_cdecl("fbs_reference_update_metadata_async")
public func fbs_reference_update_metadata_async(_ r: OpaquePointer?, _ changes: OpaquePointer?, _ cb: fbs_metadata_callback?,
                                                _ userData: UnsafeMutableRawPointer?) -> Int32 {
    let userData = UserData(pointer: userData)
    return startAsync(unsafeBitCast(cb, to: UnsafeRawPointer?.self), { done throws(StorageError) in
        let changes = try Handles.value(changes, .metadata, as: StorageMetadata.self)
        try reference(r).updateMetadata(changes, completion: done)
    }) { result in
        lending(.metadata, try? result.get()) { cb?(code(result), $0, userData.pointer) }
    }
}

// MARK: Delete

@_cdecl("fbs_reference_delete")
public func fbs_reference_delete(_ r: OpaquePointer?) -> Int32 {
    Errors.status { () throws(StorageError) in try reference(r).delete() }
}

@_cdecl("fbs_reference_delete_async")
public func fbs_reference_delete_async(_ r: OpaquePointer?, _ cb: fbs_completion_callback?, _ userData: UnsafeMutableRawPointer?) -> Int32 {
    let userData = UserData(pointer: userData)
    return startAsync(unsafeBitCast(cb, to: UnsafeRawPointer?.self), { done throws(StorageError) in try reference(r).delete(completion: done) }) { result in
        cb?(code(result), userData.pointer)
    }
}

// MARK: Download URL

@_cdecl("fbs_reference_download_url")
public func fbs_reference_download_url(_ r: OpaquePointer?, _ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    Errors.status { () throws(StorageError) in
        let out = try Arguments.out(out)
        out.pointee = ownedCString(try reference(r).downloadURL())
    }
}

@_cdecl("fbs_reference_download_url_async")
public func fbs_reference_download_url_async(_ r: OpaquePointer?, _ cb: fbs_string_callback?, _ userData: UnsafeMutableRawPointer?) -> Int32 {
    let userData = UserData(pointer: userData)
    return startAsync(unsafeBitCast(cb, to: UnsafeRawPointer?.self), { done throws(StorageError) in try reference(r).downloadURL(completion: done) }) { result in
        let url = try? result.get()
        url.map { $0.withCString { cb?(0, $0, userData.pointer) } } ?? cb?(code(result), nil, userData.pointer)
    }
}

// MARK: Data

@_cdecl("fbs_reference_get_data")
public func fbs_reference_get_data(_ r: OpaquePointer?, _ maxSize: Int64, _ outBytes: UnsafeMutablePointer<UnsafeMutableRawPointer?>?,
                                   _ outLength: UnsafeMutablePointer<Int>?) -> Int32 {
    Errors.status { () throws(StorageError) in
        let outBytes = try Arguments.out(outBytes, "out_bytes")
        let outLength = try Arguments.out(outLength, "out_length")
        let data = try reference(r).getData(maxSize: maxSize)
        guard let copy = malloc(max(data.count, 1)) else {
            throw StorageError(code: .internalError, message: "Out of memory for \(data.count) bytes")
        }
        data.withUnsafeBytes { copy.copyMemory(from: $0.baseAddress ?? UnsafeRawPointer(copy), byteCount: data.count) }
        outBytes.pointee = copy
        outLength.pointee = data.count
    }
}

@_cdecl("fbs_reference_get_data_async")
public func fbs_reference_get_data_async(_ r: OpaquePointer?, _ maxSize: Int64, _ cb: fbs_data_callback?,
                                         _ userData: UnsafeMutableRawPointer?) -> Int32 {
    let userData = UserData(pointer: userData)
    return startAsync(unsafeBitCast(cb, to: UnsafeRawPointer?.self), { done throws(StorageError) in
        try reference(r).getData(maxSize: maxSize, completion: done)
    }) { result in
        switch result {
        case .success(let data): data.withUnsafeBytes { cb?(0, $0.baseAddress, data.count, userData.pointer) }
        case .failure(let error): cb?(error.code.rawValue, nil, 0, userData.pointer)
        }
    }
}

// MARK: List

private func maxResults(_ value: Int64) -> Int64? { value == 0 ? nil : value }

@_cdecl("fbs_reference_list")
public func fbs_reference_list(_ r: OpaquePointer?, _ max: Int64, _ token: UnsafePointer<CChar>?,
                               _ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    Errors.status { () throws(StorageError) in
        let out = try Arguments.out(out)
        let page = try reference(r).list(maxResults: maxResults(max), pageToken: Arguments.optionalString(token, "page_token"))
        out.pointee = Handles.make(.listResult, page)
    }
}

@_cdecl("fbs_reference_list_async")
public func fbs_reference_list_async(_ r: OpaquePointer?, _ max: Int64, _ token: UnsafePointer<CChar>?,
                                     _ cb: fbs_list_callback?, _ userData: UnsafeMutableRawPointer?) -> Int32 {
    let userData = UserData(pointer: userData)
    return startAsync(unsafeBitCast(cb, to: UnsafeRawPointer?.self), { done throws(StorageError) in
        try reference(r).list(maxResults: maxResults(max), pageToken: Arguments.optionalString(token, "page_token"), completion: done)
    }) { result in
        lending(.listResult, try? result.get()) { cb?(code(result), $0, userData.pointer) }
    }
}

@_cdecl("fbs_reference_list_all")
public func fbs_reference_list_all(_ r: OpaquePointer?, _ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    Errors.status { () throws(StorageError) in
        let out = try Arguments.out(out)
        out.pointee = Handles.make(.listResult, try reference(r).listAll())
    }
}

@_cdecl("fbs_reference_list_all_async")
public func fbs_reference_list_all_async(_ r: OpaquePointer?, _ cb: fbs_list_callback?, _ userData: UnsafeMutableRawPointer?) -> Int32 {
    let userData = UserData(pointer: userData)
    return startAsync(unsafeBitCast(cb, to: UnsafeRawPointer?.self), { done throws(StorageError) in try reference(r).listAll(completion: done) }) { result in
        lending(.listResult, try? result.get()) { cb?(code(result), $0, userData.pointer) }
    }
}
