import FBStorage

// fbs_snapshot_*: read-only views of a StorageTaskSnapshot.

private func field<T>(_ snapshot: OpaquePointer?, _ fallback: T, _ get: (StorageTaskSnapshot) -> T) -> T {
    Errors.returning(fallback) { () throws(StorageError) in get(try StorageTaskSnapshot.behind(snapshot)) }
}

@_cdecl("fbs_snapshot_status")
public func fbs_snapshot_status(_ s: OpaquePointer?) -> Int32 { field(s, 0) { $0.status.rawValue } }

@_cdecl("fbs_snapshot_bytes_transferred")
public func fbs_snapshot_bytes_transferred(_ s: OpaquePointer?) -> Int64 { field(s, -1) { $0.bytesTransferred } }

@_cdecl("fbs_snapshot_total_bytes")
public func fbs_snapshot_total_bytes(_ s: OpaquePointer?) -> Int64 { field(s, -1) { $0.totalBytes } }

@_cdecl("fbs_snapshot_error_code")
public func fbs_snapshot_error_code(_ s: OpaquePointer?) -> Int32 {
    field(s, StorageErrorCode.invalidArgument.rawValue) { $0.error?.code.rawValue ?? 0 }
}

@_cdecl("fbs_snapshot_error_message")
public func fbs_snapshot_error_message(_ s: OpaquePointer?) -> UnsafePointer<CChar>? {
    StorageTaskSnapshot.lentString(s, .errorMessage) { $0.error?.message }
}

@_cdecl("fbs_snapshot_error_http_status")
public func fbs_snapshot_error_http_status(_ s: OpaquePointer?) -> Int32 {
    field(s, 0) { Int32(clamping: $0.error?.httpStatus ?? 0) }
}

@_cdecl("fbs_snapshot_error_server_response")
public func fbs_snapshot_error_server_response(_ s: OpaquePointer?) -> UnsafePointer<CChar>? {
    StorageTaskSnapshot.lentString(s, .serverResponse) { $0.error?.serverResponse }
}

@_cdecl("fbs_snapshot_metadata")
public func fbs_snapshot_metadata(_ s: OpaquePointer?) -> OpaquePointer? {
    StorageTaskSnapshot.lentChild(s, .metadata) { $0.metadata }
}

@_cdecl("fbs_snapshot_reference")
public func fbs_snapshot_reference(_ s: OpaquePointer?) -> OpaquePointer? {
    StorageTaskSnapshot.lentChild(s, .reference) { $0.reference }
}

@_cdecl("fbs_snapshot_free")
public func fbs_snapshot_free(_ s: OpaquePointer?) { StorageTaskSnapshot.free(s) }
