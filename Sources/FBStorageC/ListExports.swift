import FBStorage

// fbstorage/list.h: listing pages, and list results whose items and prefixes are lent out as
// reference handles, or as one string of paths.

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



private func count(_ lr: OpaquePointer?, _ get: (StorageListResult) -> Int) -> Int {
    Errors.returning(0) { () throws(StorageError) in get(try StorageListResult.behind(lr)) }
}

private func element(_ lr: OpaquePointer?, _ index: Int, _ key: (Int) -> ChildKey,
                     _ get: (StorageListResult) -> [StorageReference]) -> OpaquePointer? {
    StorageListResult.lentChild(lr, key(index)) { list in
        let elements = get(list)
        return index >= 0 && index < elements.count ? elements[index] : nil
    }
}

private func pathLines(_ lr: OpaquePointer?, _ key: StringKey, _ get: (StorageListResult) -> [StorageReference]) -> UnsafePointer<CChar>? {
    StorageListResult.lentString(lr, key) { StorageListResult.pathLines(get($0)) }
}

@_cdecl("fbs_list_result_item_count")
public func fbs_list_result_item_count(_ lr: OpaquePointer?) -> Int { count(lr) { $0.items.count } }

@_cdecl("fbs_list_result_item")
public func fbs_list_result_item(_ lr: OpaquePointer?, _ index: Int) -> OpaquePointer? { element(lr, index, ChildKey.item) { $0.items } }

@_cdecl("fbs_list_result_prefix_count")
public func fbs_list_result_prefix_count(_ lr: OpaquePointer?) -> Int { count(lr) { $0.prefixes.count } }

@_cdecl("fbs_list_result_prefix")
public func fbs_list_result_prefix(_ lr: OpaquePointer?, _ index: Int) -> OpaquePointer? { element(lr, index, ChildKey.prefix) { $0.prefixes } }

@_cdecl("fbs_list_result_item_paths")
public func fbs_list_result_item_paths(_ lr: OpaquePointer?) -> UnsafePointer<CChar>? { pathLines(lr, .itemPaths) { $0.items } }

@_cdecl("fbs_list_result_prefix_paths")
public func fbs_list_result_prefix_paths(_ lr: OpaquePointer?) -> UnsafePointer<CChar>? { pathLines(lr, .prefixPaths) { $0.prefixes } }

@_cdecl("fbs_list_result_page_token")
public func fbs_list_result_page_token(_ lr: OpaquePointer?) -> UnsafePointer<CChar>? {
    StorageListResult.lentString(lr, .pageToken) { $0.pageToken }
}

@_cdecl("fbs_list_result_free")
public func fbs_list_result_free(_ lr: OpaquePointer?) { StorageListResult.free(lr) }
