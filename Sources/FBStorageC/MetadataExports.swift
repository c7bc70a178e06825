import FBStorage

// fbs_metadata_*: a mutable StorageMetadata value behind a handle.

@_cdecl("fbs_metadata_new")
public func fbs_metadata_new(_ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    Errors.status { () throws(StorageError) in
        try Arguments.out(out).pointee = Handles.make(StorageMetadata())
    }
}

@_cdecl("fbs_metadata_copy")
public func fbs_metadata_copy(_ metadata: OpaquePointer?, _ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    Errors.status { () throws(StorageError) in
        let out = try Arguments.out(out)
        out.pointee = Handles.make(try StorageMetadata.behind(metadata))
    }
}

@_cdecl("fbs_metadata_free")
public func fbs_metadata_free(_ metadata: OpaquePointer?) { StorageMetadata.free(metadata) }

/// Changes the metadata value in place and releases the lent strings that showed what changed
/// (the header: borrowed strings live until the field changes).
private func mutate(_ metadata: OpaquePointer?, isStale: (StringKey) -> Bool,
                    _ change: (inout StorageMetadata) throws(StorageError) -> Void) -> Int32 {
    Errors.status { () throws(StorageError) in
        try Handles.withHandle(metadata) { (handle: Handle<StorageMetadata>) throws(StorageError) in
            guard handle.owned else {
                throw StorageError(code: .invalidArgument, message: "This fbs_metadata is lent by the library and read-only")
            }
            try change(&handle.value)
            handle.releaseStrings(where: isStale)
        }
    }
}

/// Sets a writable field: a string, or NULL for "delete on update".
private func setField(_ metadata: OpaquePointer?, _ value: UnsafePointer<CChar>?, _ key: StringKey,
                      _ field: WritableKeyPath<StorageMetadata, FieldValue>) -> Int32 {
    mutate(metadata, isStale: { $0 == key }) { metadata throws(StorageError) in
        metadata[keyPath: field] = try Arguments.optionalString(value, "value").map(FieldValue.value) ?? .null
    }
}

/// Changes the custom metadata.
private func mutateCustom(_ metadata: OpaquePointer?, _ change: (inout StorageMetadata) throws(StorageError) -> Void) -> Int32 {
    mutate(metadata, isStale: \.isCustomMetadata, change)
}

private func string(_ metadata: OpaquePointer?, _ key: StringKey, _ get: (StorageMetadata) -> String?) -> UnsafePointer<CChar>? {
    StorageMetadata.lentString(metadata, key, get)
}

private func number(_ metadata: OpaquePointer?, absent: Int64, _ get: (StorageMetadata) -> Int64?) -> Int64 {
    Errors.returning(absent) { () throws(StorageError) in get(try StorageMetadata.behind(metadata)) ?? absent }
}

@_cdecl("fbs_metadata_set_cache_control")
public func fbs_metadata_set_cache_control(_ m: OpaquePointer?, _ v: UnsafePointer<CChar>?) -> Int32 {
    setField(m, v, .cacheControl, \.cacheControl)
}
@_cdecl("fbs_metadata_set_content_disposition")
public func fbs_metadata_set_content_disposition(_ m: OpaquePointer?, _ v: UnsafePointer<CChar>?) -> Int32 {
    setField(m, v, .contentDisposition, \.contentDisposition)
}
@_cdecl("fbs_metadata_set_content_encoding")
public func fbs_metadata_set_content_encoding(_ m: OpaquePointer?, _ v: UnsafePointer<CChar>?) -> Int32 {
    setField(m, v, .contentEncoding, \.contentEncoding)
}
@_cdecl("fbs_metadata_set_content_language")
public func fbs_metadata_set_content_language(_ m: OpaquePointer?, _ v: UnsafePointer<CChar>?) -> Int32 {
    setField(m, v, .contentLanguage, \.contentLanguage)
}
@_cdecl("fbs_metadata_set_content_type")
public func fbs_metadata_set_content_type(_ m: OpaquePointer?, _ v: UnsafePointer<CChar>?) -> Int32 {
    setField(m, v, .contentType, \.contentType)
}

@_cdecl("fbs_metadata_cache_control")
public func fbs_metadata_cache_control(_ m: OpaquePointer?) -> UnsafePointer<CChar>? { string(m, .cacheControl) { $0.cacheControl.string } }
@_cdecl("fbs_metadata_content_disposition")
public func fbs_metadata_content_disposition(_ m: OpaquePointer?) -> UnsafePointer<CChar>? { string(m, .contentDisposition) { $0.contentDisposition.string } }
@_cdecl("fbs_metadata_content_encoding")
public func fbs_metadata_content_encoding(_ m: OpaquePointer?) -> UnsafePointer<CChar>? { string(m, .contentEncoding) { $0.contentEncoding.string } }
@_cdecl("fbs_metadata_content_language")
public func fbs_metadata_content_language(_ m: OpaquePointer?) -> UnsafePointer<CChar>? { string(m, .contentLanguage) { $0.contentLanguage.string } }
@_cdecl("fbs_metadata_content_type")
public func fbs_metadata_content_type(_ m: OpaquePointer?) -> UnsafePointer<CChar>? { string(m, .contentType) { $0.contentType.string } }
@_cdecl("fbs_metadata_bucket")
public func fbs_metadata_bucket(_ m: OpaquePointer?) -> UnsafePointer<CChar>? { string(m, .bucket) { $0.bucket } }
@_cdecl("fbs_metadata_full_path")
public func fbs_metadata_full_path(_ m: OpaquePointer?) -> UnsafePointer<CChar>? { string(m, .fullPath) { $0.fullPath } }
@_cdecl("fbs_metadata_name")
public func fbs_metadata_name(_ m: OpaquePointer?) -> UnsafePointer<CChar>? { string(m, .name) { $0.name } }
@_cdecl("fbs_metadata_md5_hash")
public func fbs_metadata_md5_hash(_ m: OpaquePointer?) -> UnsafePointer<CChar>? { string(m, .md5Hash) { $0.md5Hash } }
@_cdecl("fbs_metadata_crc32c")
public func fbs_metadata_crc32c(_ m: OpaquePointer?) -> UnsafePointer<CChar>? { string(m, .crc32c) { $0.crc32c } }

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
    mutateCustom(m) { metadata throws(StorageError) in
        try metadata.setCustom(Arguments.string(key, "key"), Arguments.optionalString(value, "value"))
    }
}

@_cdecl("fbs_metadata_remove_custom")
public func fbs_metadata_remove_custom(_ m: OpaquePointer?, _ key: UnsafePointer<CChar>?) -> Int32 {
    mutateCustom(m) { metadata throws(StorageError) in metadata.removeCustom(try Arguments.string(key, "key")) }
}

@_cdecl("fbs_metadata_clear_custom")
public func fbs_metadata_clear_custom(_ m: OpaquePointer?) -> Int32 {
    mutateCustom(m) { $0.clearCustom() }
}

@_cdecl("fbs_metadata_custom")
public func fbs_metadata_custom(_ m: OpaquePointer?, _ key: UnsafePointer<CChar>?) -> UnsafePointer<CChar>? {
    guard let name = Errors.returning(nil, { () throws(StorageError) in try Arguments.string(key, "key") }) else { return nil }
    return string(m, .custom(name)) { $0.customMetadata[name] ?? nil }
}

@_cdecl("fbs_metadata_custom_count")
public func fbs_metadata_custom_count(_ m: OpaquePointer?) -> Int {
    Errors.returning(0) { () throws(StorageError) in try StorageMetadata.behind(m).customMetadata.count }
}

@_cdecl("fbs_metadata_custom_key_at")
public func fbs_metadata_custom_key_at(_ m: OpaquePointer?, _ index: Int) -> UnsafePointer<CChar>? {
    string(m, .customKey(index)) { metadata in
        let keys = metadata.sortedCustomKeys
        return index >= 0 && index < keys.count ? keys[index] : nil
    }
}
