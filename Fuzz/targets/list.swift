// Fuzz target "list": decoding a list page and turning its names into paths, as
// StorageListResult does (names a path cannot hold are left out).

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzList(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let page = try? ListResponse.decode(json: fuzzInput(data, size)) else { return 0 }
    invariant(page.nextPageToken?.isEmpty != true, "an empty page token is kept")
    let names = page.items + page.prefixes.map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 }
    for name in names {
        guard let path = try? StoragePath(bucket: "b", object: name) else { continue }
        invariant(path.object.utf8.count <= StoragePath.maxObjectBytes, "overlong name accepted")
    }
    return 0
}
