import FBStorage

// fbs_reference_*: navigation and names. Operations are in OperationExports, tasks in TaskExports.

/// Makes a new owned reference handle from a reference handle.
private func derive(_ reference: OpaquePointer?, _ out: UnsafeMutablePointer<OpaquePointer?>?,
                    _ make: (StorageReference) throws(StorageError) -> StorageReference?) -> Int32 {
    Errors.status { () throws(StorageError) in
        let out = try Arguments.out(out)
        out.pointee = try make(StorageReference.behind(reference)).map { Handles.make($0) }
    }
}

@_cdecl("fbs_reference_child")
public func fbs_reference_child(_ reference: OpaquePointer?, _ path: UnsafePointer<CChar>?,
                                _ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    derive(reference, out) { reference throws(StorageError) in try reference.child(Arguments.string(path, "path", isPath: true)) }
}

@_cdecl("fbs_reference_parent")
public func fbs_reference_parent(_ reference: OpaquePointer?, _ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    derive(reference, out) { $0.parent }
}

@_cdecl("fbs_reference_root")
public func fbs_reference_root(_ reference: OpaquePointer?, _ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    derive(reference, out) { $0.root }
}

@_cdecl("fbs_reference_name")
public func fbs_reference_name(_ reference: OpaquePointer?) -> UnsafePointer<CChar>? {
    StorageReference.lentString(reference, .name) { $0.name }
}

@_cdecl("fbs_reference_full_path")
public func fbs_reference_full_path(_ reference: OpaquePointer?) -> UnsafePointer<CChar>? {
    StorageReference.lentString(reference, .fullPath) { $0.fullPath }
}

@_cdecl("fbs_reference_bucket")
public func fbs_reference_bucket(_ reference: OpaquePointer?) -> UnsafePointer<CChar>? {
    StorageReference.lentString(reference, .bucket) { $0.bucket }
}

@_cdecl("fbs_reference_free")
public func fbs_reference_free(_ reference: OpaquePointer?) { StorageReference.free(reference) }
