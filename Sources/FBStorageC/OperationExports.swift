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

/// Starts an async operation: on completion, `deliver` gets the callback (checked non-NULL
/// here), the result and the user data, after a failure is recorded as the last error.
private func startAsync<Callback: Sendable, T: Sendable>(
    _ callback: Callback?, _ userData: UnsafeMutableRawPointer?,
    _ start: (@escaping StorageCompletion<T>) throws(StorageError) -> Void,
    deliver: @escaping @Sendable (Callback, Result<T, StorageError>, UnsafeMutableRawPointer?) -> Void
) -> Int32 {
    Errors.status { () throws(StorageError) in
        guard let callback else { throw StorageError(code: .invalidArgument, message: "The callback is NULL") }
        let userData = UserData(pointer: userData)
        try start { result in
            if case .failure(let error) = result { Errors.record(error) }
            deliver(callback, result, userData.pointer)
        }
    }
}

private func code<T>(_ result: Result<T, StorageError>) -> Int32 {
    switch result {
    case .success: return 0
    case .failure(let error): return error.code.rawValue
    }
}

// MARK: Metadata

@_cdecl("fbs_reference_get_metadata")
public func fbs_reference_get_metadata(_ r: OpaquePointer?, _ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    Errors.status { () throws(StorageError) in
        let out = try Arguments.out(out)
        out.pointee = Handles.make(try StorageReference.behind(r).getMetadata())
    }
}

@_cdecl("fbs_reference_get_metadata_async")
public func fbs_reference_get_metadata_async(_ r: OpaquePointer?, _ cb: fbs_metadata_callback?, _ userData: UnsafeMutableRawPointer?) -> Int32 {
    startAsync(cb, userData, { done throws(StorageError) in try StorageReference.behind(r).getMetadata(completion: done) }) { cb, result, userData in
        Handles.lend(try? result.get()) { cb(code(result), $0, userData) }
    }
}

@_cdecl("fbs_reference_update_metadata")
public func fbs_reference_update_metadata(_ r: OpaquePointer?, _ changes: OpaquePointer?, _ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    Errors.status { () throws(StorageError) in
        let out = try Arguments.out(out)
        let changes = try StorageMetadata.behind(changes)
        out.pointee = Handles.make(try StorageReference.behind(r).updateMetadata(changes))
    }
}

@_cdecl("fbs_reference_update_metadata_async")
public func fbs_reference_update_metadata_async(_ r: OpaquePointer?, _ changes: OpaquePointer?, _ cb: fbs_metadata_callback?,
                                                _ userData: UnsafeMutableRawPointer?) -> Int32 {
    startAsync(cb, userData, { done throws(StorageError) in
        let changes = try StorageMetadata.behind(changes)
        try StorageReference.behind(r).updateMetadata(changes, completion: done)
    }) { cb, result, userData in
        Handles.lend(try? result.get()) { cb(code(result), $0, userData) }
    }
}

// MARK: Delete

@_cdecl("fbs_reference_delete")
public func fbs_reference_delete(_ r: OpaquePointer?) -> Int32 {
    Errors.status { () throws(StorageError) in try StorageReference.behind(r).delete() }
}

@_cdecl("fbs_reference_delete_async")
public func fbs_reference_delete_async(_ r: OpaquePointer?, _ cb: fbs_completion_callback?, _ userData: UnsafeMutableRawPointer?) -> Int32 {
    startAsync(cb, userData, { done throws(StorageError) in try StorageReference.behind(r).delete(completion: done) }) { cb, result, userData in
        cb(code(result), userData)
    }
}

// MARK: Download URL

@_cdecl("fbs_reference_download_url")
public func fbs_reference_download_url(_ r: OpaquePointer?, _ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    Errors.status { () throws(StorageError) in
        let out = try Arguments.out(out)
        out.pointee = ownedCString(try StorageReference.behind(r).downloadURL())
    }
}

@_cdecl("fbs_reference_download_url_async")
public func fbs_reference_download_url_async(_ r: OpaquePointer?, _ cb: fbs_string_callback?, _ userData: UnsafeMutableRawPointer?) -> Int32 {
    startAsync(cb, userData, { done throws(StorageError) in try StorageReference.behind(r).downloadURL(completion: done) }) { cb, result, userData in
        let url = try? result.get()
        url.map { $0.withCString { cb(0, $0, userData) } } ?? cb(code(result), nil, userData)
    }
}

// MARK: Data

@_cdecl("fbs_reference_get_data")
public func fbs_reference_get_data(_ r: OpaquePointer?, _ maxSize: Int64, _ outBytes: UnsafeMutablePointer<UnsafeMutableRawPointer?>?,
                                   _ outLength: UnsafeMutablePointer<Int>?) -> Int32 {
    Errors.status { () throws(StorageError) in
        let outBytes = try Arguments.out(outBytes, "out_bytes")
        let outLength = try Arguments.out(outLength, "out_length")
        let data = try StorageReference.behind(r).getData(maxSize: maxSize)
        guard let (bytes, count) = data.take() else {
            throw StorageError(code: .internalError, message: "Out of memory for \(data.count) bytes")
        }
        outBytes.pointee = bytes
        outLength.pointee = count
    }
}

@_cdecl("fbs_reference_get_data_async")
public func fbs_reference_get_data_async(_ r: OpaquePointer?, _ maxSize: Int64, _ cb: fbs_data_callback?,
                                         _ userData: UnsafeMutableRawPointer?) -> Int32 {
    startAsync(cb, userData, { done throws(StorageError) in
        try StorageReference.behind(r).getData(maxSize: maxSize, completion: done)
    }) { cb, result, userData in
        switch result {
        case .success(let data): data.withUnsafeBytes { cb(0, $0.baseAddress, $0.count, userData) }
        case .failure(let error): cb(error.code.rawValue, nil, 0, userData)
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
        let page = try StorageReference.behind(r).list(maxResults: maxResults(max), pageToken: Arguments.optionalString(token, "page_token"))
        out.pointee = Handles.make(page)
    }
}

@_cdecl("fbs_reference_list_async")
public func fbs_reference_list_async(_ r: OpaquePointer?, _ max: Int64, _ token: UnsafePointer<CChar>?,
                                     _ cb: fbs_list_callback?, _ userData: UnsafeMutableRawPointer?) -> Int32 {
    startAsync(cb, userData, { done throws(StorageError) in
        try StorageReference.behind(r).list(maxResults: maxResults(max), pageToken: Arguments.optionalString(token, "page_token"), completion: done)
    }) { cb, result, userData in
        Handles.lend(try? result.get()) { cb(code(result), $0, userData) }
    }
}

@_cdecl("fbs_reference_list_all")
public func fbs_reference_list_all(_ r: OpaquePointer?, _ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    Errors.status { () throws(StorageError) in
        let out = try Arguments.out(out)
        out.pointee = Handles.make(try StorageReference.behind(r).listAll())
    }
}

@_cdecl("fbs_reference_list_all_async")
public func fbs_reference_list_all_async(_ r: OpaquePointer?, _ cb: fbs_list_callback?, _ userData: UnsafeMutableRawPointer?) -> Int32 {
    startAsync(cb, userData, { done throws(StorageError) in try StorageReference.behind(r).listAll(completion: done) }) { cb, result, userData in
        Handles.lend(try? result.get()) { cb(code(result), $0, userData) }
    }
}
