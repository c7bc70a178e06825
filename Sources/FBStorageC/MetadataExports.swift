import FBStorage

// fbs_metadata_*: a mutable StorageMetadata value behind a handle.

@_cdecl("fbs_metadata_new")
public func fbs_metadata_new(_ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    Errors.status { () throws(StorageError) in
        try Arguments.out(out).pointee = Handles.make(.metadata, StorageMetadata())
    }
}

@_cdecl("fbs_metadata_free")
public func fbs_metadata_free(_ metadata: OpaquePointer?) {
    _ = Errors.status { () throws(StorageError) in try Handles.release(metadata, .metadata) }
}

/// Changes the metadata value in place; cached C strings whose key starts with `stale` are
/// released (the header: borrowed strings live until the field changes).
private func mutate(_ metadata: OpaquePointer?, stale: String, _ change: (inout StorageMetadata) -> Void) -> Int32 {
    Errors.status { () throws(StorageError) in
        try Handles.withHandle(metadata, .metadata) { handle throws(StorageError) in
            guard handle.owned, var value = handle.value as? StorageMetadata else {
                throw StorageError(code: .invalidArgument, message: "This fbs_metadata is lent by the library and read-only")
            }
            change(&value)
            handle.value = value
            Handles.invalidate(handle, prefix: stale)
        }
    }
}

/// Sets a writable field: a string, or NULL for "delete on update".
private func setField(_ metadata: OpaquePointer?, _ value: UnsafePointer<CChar>?, key: String,
                      _ field: WritableKeyPath<StorageMetadata, FieldValue>) -> Int32 {
    let converted: FieldValue
    do {
        converted = try Arguments.optionalString(value, "value").map(FieldValue.value) ?? .null
    } catch {
        Errors.record(error)
        return error.code.rawValue
    }
    return mutate(metadata, stale: key) { $0[keyPath: field] = converted }
}

private func string(_ metadata: OpaquePointer?, key: String, _ get: @escaping (StorageMetadata) -> String?) -> UnsafePointer<CChar>? {
    Handles.string(metadata, .metadata, key: key) { ($0 as? StorageMetadata).flatMap(get) }
}

private func number(_ metadata: OpaquePointer?, absent: Int64, _ get: (StorageMetadata) -> Int64?) -> Int64 {
    Errors.returning(absent) { () throws(StorageError) in
        get(try Handles.value(metadata, .metadata, as: StorageMetadata.self)) ?? absent
    }
}

@_cdecl("fbs_metadata_set_cache_control")
public func fbs_metadata_set_cache_control(_ m: OpaquePointer?, _ v: UnsafePointer<CChar>?) -> Int32 {
    setField(m, v, key: "cache_control", \.cacheControl)
}
@_cdecl("fbs_metadata_set_content_disposition")
public func fbs_metadata_set_content_disposition(_ m: OpaquePointer?, _ v: UnsafePointer<CChar>?) -> Int32 {
    setField(m, v, key: "content_disposition", \.contentDisposition)
}
@_cdecl("fbs_metadata_set_content_encoding")
public func fbs_metadata_set_content_encoding(_ m: OpaquePointer?, _ v: UnsafePointer<CChar>?) -> Int32 {
    setField(m, v, key: "content_encoding", \.contentEncoding)
}
@_cdecl("fbs_metadata_set_content_language")
public func fbs_metadata_set_content_language(_ m: OpaquePointer?, _ v: UnsafePointer<CChar>?) -> Int32 {
    setField(m, v, key: "content_language", \.contentLanguage)
}
@_cdecl("fbs_metadata_set_content_type")
public func fbs_metadata_set_content_type(_ m: OpaquePointer?, _ v: UnsafePointer<CChar>?) -> Int32 {
    setField(m, v, key: "content_type", \.contentType)
}

@_cdecl("fbs_metadata_cache_control")
public func fbs_metadata_cache_control(_ m: OpaquePointer?) -> UnsafePointer<CChar>? { string(m, key: "cache_control") { $0.cacheControl.string } }
@_cdecl("fbs_metadata_content_disposition")
public func fbs_metadata_content_disposition(_ m: OpaquePointer?) -> UnsafePointer<CChar>? { string(m, key: "content_disposition") { $0.contentDisposition.string } }
@_cdecl("fbs_metadata_content_encoding")
public func fbs_metadata_content_encoding(_ m: OpaquePointer?) -> UnsafePointer<CChar>? { string(m, key: "content_encoding") { $0.contentEncoding.string } }
@_cdecl("fbs_metadata_content_language")
public func fbs_metadata_content_language(_ m: OpaquePointer?) -> UnsafePointer<CChar>? { string(m, key: "content_language") { $0.contentLanguage.string } }
@_cdecl("fbs_metadata_content_type")
public func fbs_metadata_content_type(_ m: OpaquePointer?) -> UnsafePointer<CChar>? { string(m, key: "content_type") { $0.contentType.string } }
@_cdecl("fbs_metadata_bucket")
public func fbs_metadata_bucket(_ m: OpaquePointer?) -> UnsafePointer<CChar>? { string(m, key: "bucket") { $0.bucket } }
@_cdecl("fbs_metadata_full_path")
public func fbs_metadata_full_path(_ m: OpaquePointer?) -> UnsafePointer<CChar>? { string(m, key: "full_path") { $0.fullPath } }
@_cdecl("fbs_metadata_name")
public func fbs_metadata_name(_ m: OpaquePointer?) -> UnsafePointer<CChar>? { string(m, key: "name") { $0.name } }
@_cdecl("fbs_metadata_md5_hash")
public func fbs_metadata_md5_hash(_ m: OpaquePointer?) -> UnsafePointer<CChar>? { string(m, key: "md5_hash") { $0.md5Hash } }
@_cdecl("fbs_metadata_crc32c")
public func fbs_metadata_crc32c(_ m: OpaquePointer?) -> UnsafePointer<CChar>? { string(m, key: "crc32c") { $0.crc32c } }

@_cdecl("fbs_metadata_size")
public func fbs_metadata_size(_ m: OpaquePointer?) -> Int64 { number(m, absent: -1) { $0.size } }
@_cdecl("fbs_metadata_generation")
public func fbs_metadata_generation(_ m: OpaquePointer?) -> Int64 { number(m, absent: -1) { $0.generation } }
@_cdecl("fbs_metadata_metageneration")
public func fbs_metadata_metageneration(_ m: OpaquePointer?) -> Int64 { number(m, absent: -1) { $0.metageneration } }
@_cdecl("fbs_metadata_time_created_ms")
public func fbs_metadata_time_created_ms(_ m: OpaquePointer?) -> Int64 { number(m, absent: .min) { $0.timeCreatedMillis } }
@_cdecl("fbs_metadata_updated_ms")
public func fbs_metadata_updated_ms(_ m: OpaquePointer?) -> Int64 { number(m, absent: .min) { $0.updatedMillis } }

@_cdecl("fbs_metadata_set_custom")
public func fbs_metadata_set_custom(_ m: OpaquePointer?, _ key: UnsafePointer<CChar>?, _ value: UnsafePointer<CChar>?) -> Int32 {
    let pair: (String, String?)
    do {
        pair = (try Arguments.string(key, "key"), try Arguments.optionalString(value, "value"))
    } catch {
        Errors.record(error)
        return error.code.rawValue
    }
    return mutate(m, stale: "custom") { $0.setCustom(pair.0, pair.1) }
}

@_cdecl("fbs_metadata_remove_custom")
public func fbs_metadata_remove_custom(_ m: OpaquePointer?, _ key: UnsafePointer<CChar>?) -> Int32 {
    let name: String
    do { name = try Arguments.string(key, "key") } catch {
        Errors.record(error)
        return error.code.rawValue
    }
    return mutate(m, stale: "custom") { $0.removeCustom(name) }
}

@_cdecl("fbs_metadata_clear_custom")
public func fbs_metadata_clear_custom(_ m: OpaquePointer?) -> Int32 {
    mutate(m, stale: "custom") { $0.clearCustom() }
}

@_cdecl("fbs_metadata_custom")
public func fbs_metadata_custom(_ m: OpaquePointer?, _ key: UnsafePointer<CChar>?) -> UnsafePointer<CChar>? {
    guard let name = Errors.returning(nil, { () throws(StorageError) in try Arguments.string(key, "key") }) else { return nil }
    return string(m, key: "custom:\(name)") { $0.customMetadata[name] ?? nil }
}

@_cdecl("fbs_metadata_custom_count")
public func fbs_metadata_custom_count(_ m: OpaquePointer?) -> Int {
    Errors.returning(0) { () throws(StorageError) in try Handles.value(m, .metadata, as: StorageMetadata.self).customMetadata.count }
}

@_cdecl("fbs_metadata_custom_key_at")
public func fbs_metadata_custom_key_at(_ m: OpaquePointer?, _ index: Int) -> UnsafePointer<CChar>? {
    string(m, key: "custom-key-at:\(index)") { metadata in
        let keys = metadata.sortedCustomKeys
        return index >= 0 && index < keys.count ? keys[index] : nil
    }
}
