import FBStorage
#if canImport(Glibc)
import Glibc
#endif

// fbstorage/operations.h: blocking and _async forms of the reference operations.

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
    startAsync(cb, userData, { done throws(StorageError) in try StorageReference.behind(r).downloadURL(completion: done) }) { cb, result, userData in deliver(result, to: cb, userData) }
}

// MARK: Data

@_cdecl("fbs_reference_get_data")
public func fbs_reference_get_data(_ r: OpaquePointer?, _ maxSize: Int64, _ outBytes: UnsafeMutablePointer<UnsafeMutableRawPointer?>?,
                                   _ outLength: UnsafeMutablePointer<Int>?) -> Int32 {
    Errors.status { () throws(StorageError) in
        let outBytes = try Arguments.out(outBytes, "out_bytes")
        let outLength = try Arguments.out(outLength, "out_length")
        let data = try StorageReference.behind(r).getData(maxSize: maxSize)
        (outBytes.pointee, outLength.pointee) = try handOver(data)
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

@_cdecl("fbs_reference_get_data_into")
public func fbs_reference_get_data_into(_ r: OpaquePointer?, _ maxSize: Int64, _ allocator: UnsafeRawPointer?,
                                        _ outBytes: UnsafeMutablePointer<UnsafeMutableRawPointer?>?,
                                        _ outLength: UnsafeMutablePointer<Int>?) -> Int32 {
    Errors.status { () throws(StorageError) in
        let outBytes = try Arguments.out(outBytes, "out_bytes")
        let outLength = try Arguments.out(outLength, "out_length")
        outBytes.pointee = nil
        let data = try StorageReference.behind(r).getData(maxSize: maxSize, allocator: try Arguments.allocator(allocator))
        (outBytes.pointee, outLength.pointee) = try handOver(data)
    }
}

@_cdecl("fbs_reference_get_data_into_async")
public func fbs_reference_get_data_into_async(_ r: OpaquePointer?, _ maxSize: Int64, _ allocator: UnsafeRawPointer?,
                                              _ cb: fbs_data_callback?, _ userData: UnsafeMutableRawPointer?) -> Int32 {
    startAsync(cb, userData, { done throws(StorageError) in
        try StorageReference.behind(r).getData(maxSize: maxSize, allocator: try Arguments.allocator(allocator), completion: done)
    }) { cb, result, userData in
        switch result.flatMap({ data in Result<(UnsafeMutableRawPointer?, Int), StorageError>(catching: { () throws(StorageError) in try handOver(data) }) }) {
        case .success(let (bytes, count)): cb(0, bytes, count, userData)
        case .failure(let error):
            Errors.record(error)
            cb(error.code.rawValue, nil, 0, userData)
        }
    }
}

/// The downloaded bytes as the caller takes them: malloc'd (fbs_data_free) or the allocator's.
func handOver(_ data: ByteBuffer) throws(StorageError) -> (UnsafeMutableRawPointer?, Int) {
    let count = data.count
    guard let taken = data.take() else { throw StorageError(code: .internalError, message: "Out of memory for \(count) bytes") }
    return taken
}
