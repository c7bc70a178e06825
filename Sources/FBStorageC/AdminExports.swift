import FBStorage

// fbstorage/admin.h: service accounts, access tokens, signed URLs, download tokens.

private func newServiceAccount(_ out: UnsafeMutablePointer<OpaquePointer?>?,
                               _ key: () throws(StorageError) -> ServiceAccountKey) -> Int32 {
    Errors.status { () throws(StorageError) in
        let out = try Arguments.out(out)
        out.pointee = Handles.make(try ServiceAccountCredentials(key: key()))
    }
}

@_cdecl("fbs_service_account_from_file")
public func fbs_service_account_from_file(_ path: UnsafePointer<CChar>?, _ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    newServiceAccount(out) { () throws(StorageError) in try ServiceAccountKey(path: Arguments.string(path, "path")) }
}

@_cdecl("fbs_service_account_from_json")
public func fbs_service_account_from_json(_ json: UnsafePointer<CChar>?, _ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    newServiceAccount(out) { () throws(StorageError) in try ServiceAccountKey(json: Array(Arguments.string(json, "json").utf8)) }
}

@_cdecl("fbs_service_account_from_environment")
public func fbs_service_account_from_environment(_ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    newServiceAccount(out) { () throws(StorageError) in try ServiceAccountKey.fromEnvironment() }
}

@_cdecl("fbs_service_account_free")
public func fbs_service_account_free(_ account: OpaquePointer?) {
    ServiceAccountCredentials.free(account)
}

@_cdecl("fbs_service_account_email")
public func fbs_service_account_email(_ account: OpaquePointer?) -> UnsafePointer<CChar>? {
    ServiceAccountCredentials.lentString(account, .email) { $0.key.clientEmail }
}

@_cdecl("fbs_service_account_project_id")
public func fbs_service_account_project_id(_ account: OpaquePointer?) -> UnsafePointer<CChar>? {
    ServiceAccountCredentials.lentString(account, .projectID) { $0.key.projectID }
}

@_cdecl("fbs_service_account_set_scopes")
public func fbs_service_account_set_scopes(_ account: OpaquePointer?, _ scopes: UnsafePointer<CChar>?) -> Int32 {
    Errors.status { () throws(StorageError) in
        let list = try Arguments.string(scopes, "scopes").split(separator: " ").map(String.init)
        try ServiceAccountCredentials.behind(account).setScopes(list)
    }
}

@_cdecl("fbs_service_account_access_token")
public func fbs_service_account_access_token(_ account: OpaquePointer?, _ forceRefresh: Int32,
                                             _ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    Errors.status { () throws(StorageError) in
        let out = try Arguments.out(out)
        out.pointee = ownedCString(try ServiceAccountCredentials.behind(account).accessToken(forceRefresh: forceRefresh != 0))
    }
}

@_cdecl("fbs_storage_use_service_account")
public func fbs_storage_use_service_account(_ storage: OpaquePointer?, _ account: OpaquePointer?) -> Int32 {
    Errors.status { () throws(StorageError) in
        let storage = try Storage.behind(storage)
        storage.use(tokenSource: try account.map { pointer throws(StorageError) in try ServiceAccountCredentials.behind(pointer) })
    }
}

@_cdecl("fbs_storage_set_access_token")
public func fbs_storage_set_access_token(_ storage: OpaquePointer?, _ token: UnsafePointer<CChar>?) -> Int32 {
    Errors.status { () throws(StorageError) in
        try Storage.behind(storage).setAuthToken(Arguments.optionalString(token, "token"), scheme: .bearer)
    }
}

@_cdecl("fbs_storage_set_access_token_provider")
public func fbs_storage_set_access_token_provider(_ storage: OpaquePointer?, _ provider: fbs_token_provider?,
                                                  _ userData: UnsafeMutableRawPointer?) -> Int32 {
    Errors.status { () throws(StorageError) in
        let storage = try Storage.behind(storage)
        let userData = UserData(pointer: userData)
        guard let provider else { return storage.setAuthTokenProvider(scheme: .bearer, nil) }
        storage.setAuthTokenProvider(scheme: .bearer) { forceRefresh in
            provider(forceRefresh ? 1 : 0, userData.pointer).flatMap { String(validatingCString: $0) }
        }
    }
}

// MARK: Signed URLs

/// name, value, …, NULL as pairs.
private func pairs(_ list: UnsafePointer<UnsafePointer<CChar>?>?, _ name: String) throws(StorageError) -> [(name: String, value: String)] {
    guard let list else { return [] }
    var strings: [String] = []
    var index = 0
    while let pointer = list[index] {
        strings.append(try Arguments.string(pointer, name))
        index += 1
    }
    guard strings.count % 2 == 0 else { throw .invalidArgument("\(name) must hold name, value pairs: its length is odd") }
    return stride(from: 0, to: strings.count, by: 2).map { (name: strings[$0], value: strings[$0 + 1]) }
}

@_cdecl("fbs_service_account_sign_url")
public func fbs_service_account_sign_url(_ account: OpaquePointer?, _ method: UnsafePointer<CChar>?, _ bucket: UnsafePointer<CChar>?,
                                         _ object: UnsafePointer<CChar>?, _ expiresSeconds: Int64, _ timeMs: Int64,
                                         _ endpoint: UnsafePointer<CChar>?, _ urlStyle: Int32,
                                         _ headers: UnsafePointer<UnsafePointer<CChar>?>?,
                                         _ queryParams: UnsafePointer<UnsafePointer<CChar>?>?,
                                         _ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    Errors.status { () throws(StorageError) in
        let out = try Arguments.out(out)
        let credentials = try ServiceAccountCredentials.behind(account)
        var request = SignedURLRequest(method: try Arguments.string(method, "method"), bucket: try Arguments.string(bucket, "bucket"),
                                       object: try Arguments.optionalString(object, "object", isPath: true), expiresIn: expiresSeconds)
        request.headers = try pairs(headers, "headers")
        request.queryParameters = try pairs(queryParams, "query_params")
        request.timestamp = timeMs == Int64.min ? nil : timeMs / 1000
        let endpoint = try Arguments.optionalString(endpoint, "endpoint")
        switch urlStyle {
        case 0: request.style = .path
        case 1: request.style = .virtualHosted
        case 2:
            guard let endpoint else { throw .invalidArgument("FBS_URL_STYLE_BUCKET_BOUND_HOSTNAME needs the hostname as endpoint") }
            request.style = .bucketBoundHostname(endpoint)
        default: throw .invalidArgument("Unknown URL style \(urlStyle)")
        }
        if let endpoint, urlStyle != 2 { request.endpoint = endpoint }
        out.pointee = ownedCString(try credentials.key.signedURL(request))
    }
}

// MARK: Download tokens

@_cdecl("fbs_metadata_download_token_count")
public func fbs_metadata_download_token_count(_ m: OpaquePointer?) -> Int {
    Errors.returning(0) { () throws(StorageError) in try StorageMetadata.behind(m).downloadTokens.count }
}

@_cdecl("fbs_metadata_download_token_at")
public func fbs_metadata_download_token_at(_ m: OpaquePointer?, _ index: Int) -> UnsafePointer<CChar>? {
    StorageMetadata.lentString(m, .downloadToken(index)) { metadata in
        index >= 0 && index < metadata.downloadTokens.count ? metadata.downloadTokens[index] : nil
    }
}

@_cdecl("fbs_reference_create_download_token")
public func fbs_reference_create_download_token(_ r: OpaquePointer?, _ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    Errors.status { () throws(StorageError) in
        let out = try Arguments.out(out)
        out.pointee = ownedCString(try StorageReference.behind(r).createDownloadToken())
    }
}

@_cdecl("fbs_reference_revoke_download_token")
public func fbs_reference_revoke_download_token(_ r: OpaquePointer?, _ token: UnsafePointer<CChar>?,
                                                _ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    Errors.status { () throws(StorageError) in
        let metadata = try StorageReference.behind(r).revokeDownloadToken(Arguments.string(token, "token"))
        out?.pointee = Handles.make(metadata)
    }
}

@_cdecl("fbs_reference_download_url_for_token")
public func fbs_reference_download_url_for_token(_ r: OpaquePointer?, _ token: UnsafePointer<CChar>?,
                                                 _ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    Errors.status { () throws(StorageError) in
        let out = try Arguments.out(out)
        out.pointee = ownedCString(try StorageReference.behind(r).downloadURL(token: Arguments.string(token, "token")))
    }
}

// MARK: GCS JSON API: listing with metadata, server-side copy

@_cdecl("fbs_reference_list_with_metadata")
public func fbs_reference_list_with_metadata(_ r: OpaquePointer?, _ maxResults: Int64, _ pageToken: UnsafePointer<CChar>?,
                                             _ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    Errors.status { () throws(StorageError) in
        let out = try Arguments.out(out)
        let list = try StorageReference.behind(r).listWithMetadata(maxResults: maxResults == 0 ? nil : maxResults,
                                                                   pageToken: Arguments.optionalString(pageToken, "page_token"))
        out.pointee = Handles.make(list)
    }
}

@_cdecl("fbs_list_result_item_metadata")
public func fbs_list_result_item_metadata(_ lr: OpaquePointer?, _ index: Int) -> OpaquePointer? {
    StorageListResult.lentChild(lr, .itemMetadata(index)) { list in
        index >= 0 && index < list.itemMetadata.count ? list.itemMetadata[index] : nil
    }
}

@_cdecl("fbs_reference_copy_to")
public func fbs_reference_copy_to(_ source: OpaquePointer?, _ destination: OpaquePointer?,
                                  _ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    Errors.status { () throws(StorageError) in
        let metadata = try StorageReference.behind(source).copy(to: StorageReference.behind(destination))
        out?.pointee = Handles.make(metadata)
    }
}

@_cdecl("fbs_reference_list_with_metadata_async")
public func fbs_reference_list_with_metadata_async(_ r: OpaquePointer?, _ maxResults: Int64, _ pageToken: UnsafePointer<CChar>?,
                                                   _ cb: fbs_list_callback?, _ userData: UnsafeMutableRawPointer?) -> Int32 {
    startAsync(cb, userData, { done throws(StorageError) in
        try StorageReference.behind(r).listWithMetadata(maxResults: maxResults == 0 ? nil : maxResults,
                                                        pageToken: Arguments.optionalString(pageToken, "page_token"), completion: done)
    }) { cb, result, userData in
        Handles.lend(try? result.get()) { cb(code(result), $0, userData) }
    }
}

@_cdecl("fbs_reference_copy_to_async")
public func fbs_reference_copy_to_async(_ source: OpaquePointer?, _ destination: OpaquePointer?,
                                        _ cb: fbs_metadata_callback?, _ userData: UnsafeMutableRawPointer?) -> Int32 {
    startAsync(cb, userData, { done throws(StorageError) in
        try StorageReference.behind(source).copy(to: StorageReference.behind(destination), completion: done)
    }) { cb, result, userData in
        Handles.lend(try? result.get()) { cb(code(result), $0, userData) }
    }
}

@_cdecl("fbs_reference_create_download_token_async")
public func fbs_reference_create_download_token_async(_ r: OpaquePointer?, _ cb: fbs_string_callback?,
                                                      _ userData: UnsafeMutableRawPointer?) -> Int32 {
    startAsync(cb, userData, { done throws(StorageError) in try StorageReference.behind(r).createDownloadToken(completion: done) }) {
        cb, result, userData in deliver(result, to: cb, userData)
    }
}

@_cdecl("fbs_reference_revoke_download_token_async")
public func fbs_reference_revoke_download_token_async(_ r: OpaquePointer?, _ token: UnsafePointer<CChar>?,
                                                      _ cb: fbs_metadata_callback?, _ userData: UnsafeMutableRawPointer?) -> Int32 {
    startAsync(cb, userData, { done throws(StorageError) in
        try StorageReference.behind(r).revokeDownloadToken(Arguments.string(token, "token"), completion: done)
    }) { cb, result, userData in
        Handles.lend(try? result.get()) { cb(code(result), $0, userData) }
    }
}
