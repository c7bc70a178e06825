import FBStorage

// fbs_list_result_*: items and prefixes lent out as reference handles, or as one string of paths.

private func count(_ lr: OpaquePointer?, _ get: (StorageListResult) -> Int) -> Int {
    Errors.returning(0) { () throws(StorageError) in get(try Handles.value(lr, .listResult, as: StorageListResult.self)) }
}

private func element(_ lr: OpaquePointer?, _ index: Int, _ key: (Int) -> ChildKey,
                     _ get: @escaping (StorageListResult) -> [StorageReference]) -> OpaquePointer? {
    Handles.child(lr, .listResult, key: key(index), childKind: .reference) { value in
        guard let list = (value as? StorageListResult).map(get), index >= 0, index < list.count else { return nil }
        return list[index]
    }
}

private func pathLines(_ lr: OpaquePointer?, _ kind: String, _ get: @escaping (StorageListResult) -> [StorageReference]) -> UnsafePointer<CChar>? {
    Handles.string(lr, .listResult, key: "\(kind)_paths") { value in
        (value as? StorageListResult).map { StorageListResult.pathLines(get($0)) }
    }
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
public func fbs_list_result_item_paths(_ lr: OpaquePointer?) -> UnsafePointer<CChar>? { pathLines(lr, "item") { $0.items } }

@_cdecl("fbs_list_result_prefix_paths")
public func fbs_list_result_prefix_paths(_ lr: OpaquePointer?) -> UnsafePointer<CChar>? { pathLines(lr, "prefix") { $0.prefixes } }

@_cdecl("fbs_list_result_page_token")
public func fbs_list_result_page_token(_ lr: OpaquePointer?) -> UnsafePointer<CChar>? {
    Handles.string(lr, .listResult, key: "page_token") { ($0 as? StorageListResult)?.pageToken }
}

@_cdecl("fbs_list_result_free")
public func fbs_list_result_free(_ lr: OpaquePointer?) {
    _ = Errors.status { () throws(StorageError) in try Handles.release(lr, .listResult) }
}
