import FBStorage

// fbs_storage_*: creation, settings, credentials, references.

@_cdecl("fbs_storage_new")
public func fbs_storage_new(_ bucket: UnsafePointer<CChar>?, _ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    Errors.status { () throws(StorageError) in
        let out = try Arguments.out(out)
        let storage = try Storage(bucket: Arguments.string(bucket, "bucket", isPath: true))
        out.pointee = Handles.make(storage)
    }
}

@_cdecl("fbs_storage_free")
public func fbs_storage_free(_ storage: OpaquePointer?) {
    _ = Errors.status { () throws(StorageError) in
        let released: Storage? = try Handles.release(storage)
        released?.close(.keepSessions)   // freeing never throws work away: sessions stay resumable
        // Derived handles may keep the storage object alive: its token provider goes now, so that
        // the provider's destroy callback has run when this returns.
        released?.use(tokenSource: nil)
    }
}

@_cdecl("fbs_storage_close")
public func fbs_storage_close(_ storage: OpaquePointer?, _ mode: Int32, _ timeoutSeconds: Double) -> Int32 {
    Errors.status { () throws(StorageError) in
        let storage = try Storage.behind(storage)
        guard timeoutSeconds.isFinite, timeoutSeconds >= 0 else {
            throw StorageError(code: .invalidArgument, message: "timeout_seconds must be a finite number >= 0")
        }
        switch mode {
        case 0: storage.close(.cancel)
        case 1: storage.close(.keepSessions)
        case 2: storage.close(.finish(within: timeoutSeconds))
        default: throw StorageError(code: .invalidArgument, message: "mode must be FBS_CLOSE_CANCEL, FBS_CLOSE_KEEP_SESSIONS or FBS_CLOSE_FINISH")
        }
    }
}

@_cdecl("fbs_storage_bucket")
public func fbs_storage_bucket(_ storage: OpaquePointer?) -> UnsafePointer<CChar>? {
    Storage.lentString(storage, .bucket) { $0.bucket }
}

@_cdecl("fbs_storage_use_emulator")
public func fbs_storage_use_emulator(_ storage: OpaquePointer?, _ host: UnsafePointer<CChar>?, _ port: Int32) -> Int32 {
    Errors.status { () throws(StorageError) in
        try Storage.behind(storage).useEmulator(host: Arguments.string(host, "host"), port: Int(port))
    }
}

@_cdecl("fbs_storage_use_endpoint")
public func fbs_storage_use_endpoint(_ storage: OpaquePointer?, _ url: UnsafePointer<CChar>?) -> Int32 {
    Errors.status { () throws(StorageError) in
        try Storage.behind(storage).useEndpoint(url: Arguments.string(url, "url"))
    }
}

@_cdecl("fbs_storage_set_auth_token")
public func fbs_storage_set_auth_token(_ storage: OpaquePointer?, _ token: UnsafePointer<CChar>?) -> Int32 {
    Errors.status { () throws(StorageError) in
        try Storage.behind(storage).setAuthToken(Arguments.optionalString(token, "token"))
    }
}

public typealias fbs_token_provider = @convention(c) (Int32, UnsafeMutableRawPointer?) -> UnsafePointer<CChar>?

@_cdecl("fbs_storage_set_auth_token_provider")
public func fbs_storage_set_auth_token_provider(_ storage: OpaquePointer?, _ provider: fbs_token_provider?,
                                               _ userData: UnsafeMutableRawPointer?) -> Int32 {
    fbs_storage_set_auth_token_provider_full(storage, provider, userData, nil)
}

@_cdecl("fbs_storage_set_auth_token_provider_full")
public func fbs_storage_set_auth_token_provider_full(_ storage: OpaquePointer?, _ provider: fbs_token_provider?,
                                                    _ userData: UnsafeMutableRawPointer?,
                                                    _ destroy: fbs_destroy_notify?) -> Int32 {
    // Owned from here: unless the provider keeps it, it is released (destroy runs) before returning.
    let userData = OwnedUserData(userData, destroy: destroy)
    return Errors.status { () throws(StorageError) in
        let storage = try Storage.behind(storage)
        guard let provider else { return storage.setAuthTokenProvider(nil) }
        storage.setAuthTokenProvider(checked: { forceRefresh in
            guard let token = provider(forceRefresh ? 1 : 0, userData.pointer) else { return .success(nil) }
            guard let text = String(validatingCString: token) else {
                return .failure(StorageError(code: .invalidArgument, message: "The token provider returned a token that is not valid UTF-8"))
            }
            return .success(text)
        })
    }
}

@_cdecl("fbs_storage_set_app_check_token")
public func fbs_storage_set_app_check_token(_ storage: OpaquePointer?, _ token: UnsafePointer<CChar>?) -> Int32 {
    Errors.status { () throws(StorageError) in
        try Storage.behind(storage).setAppCheckToken(Arguments.optionalString(token, "token"))
    }
}

/// Reads or changes one setting of a storage handle.
private func update(_ storage: OpaquePointer?, _ change: (inout StorageSettings) throws(StorageError) -> Void) -> Int32 {
    Errors.status { () throws(StorageError) in
        try Storage.behind(storage).updateSettings(change)
    }
}

private func read<T>(_ storage: OpaquePointer?, _ out: UnsafeMutablePointer<T>?, _ field: (StorageSettings) -> T) -> Int32 {
    Errors.status { () throws(StorageError) in
        let out = try Arguments.out(out)
        out.pointee = field(try Storage.behind(storage).settings)
    }
}

@_cdecl("fbs_storage_set_max_upload_retry_time")
public func fbs_storage_set_max_upload_retry_time(_ storage: OpaquePointer?, _ seconds: Double) -> Int32 {
    update(storage) { settings throws(StorageError) in settings.maxUploadRetryTime = try Arguments.seconds(seconds, "max upload retry time") }
}

@_cdecl("fbs_storage_get_max_upload_retry_time")
public func fbs_storage_get_max_upload_retry_time(_ storage: OpaquePointer?, _ out: UnsafeMutablePointer<Double>?) -> Int32 {
    read(storage, out) { $0.maxUploadRetryTime }
}

@_cdecl("fbs_storage_set_max_download_retry_time")
public func fbs_storage_set_max_download_retry_time(_ storage: OpaquePointer?, _ seconds: Double) -> Int32 {
    update(storage) { settings throws(StorageError) in settings.maxDownloadRetryTime = try Arguments.seconds(seconds, "max download retry time") }
}

@_cdecl("fbs_storage_get_max_download_retry_time")
public func fbs_storage_get_max_download_retry_time(_ storage: OpaquePointer?, _ out: UnsafeMutablePointer<Double>?) -> Int32 {
    read(storage, out) { $0.maxDownloadRetryTime }
}

@_cdecl("fbs_storage_set_max_operation_retry_time")
public func fbs_storage_set_max_operation_retry_time(_ storage: OpaquePointer?, _ seconds: Double) -> Int32 {
    update(storage) { settings throws(StorageError) in settings.maxOperationRetryTime = try Arguments.seconds(seconds, "max operation retry time") }
}

@_cdecl("fbs_storage_get_max_operation_retry_time")
public func fbs_storage_get_max_operation_retry_time(_ storage: OpaquePointer?, _ out: UnsafeMutablePointer<Double>?) -> Int32 {
    read(storage, out) { $0.maxOperationRetryTime }
}

@_cdecl("fbs_storage_set_upload_chunk_size")
public func fbs_storage_set_upload_chunk_size(_ storage: OpaquePointer?, _ bytes: Int64) -> Int32 {
    update(storage) { settings throws(StorageError) in
        guard StorageSettings.chunkSizeRange.contains(bytes) else {
            throw StorageError(code: .invalidArgument, message: "The upload chunk size must be between 256 KiB and 1 GiB")
        }
        settings.uploadChunkSize = bytes
    }
}

@_cdecl("fbs_storage_get_upload_chunk_size")
public func fbs_storage_get_upload_chunk_size(_ storage: OpaquePointer?, _ out: UnsafeMutablePointer<Int64>?) -> Int32 {
    read(storage, out) { $0.uploadChunkSize }
}

@_cdecl("fbs_storage_set_connect_timeout")
public func fbs_storage_set_connect_timeout(_ storage: OpaquePointer?, _ seconds: Double) -> Int32 {
    update(storage) { settings throws(StorageError) in settings.connectTimeout = try Arguments.seconds(seconds, "connect timeout") }
}

@_cdecl("fbs_storage_get_connect_timeout")
public func fbs_storage_get_connect_timeout(_ storage: OpaquePointer?, _ out: UnsafeMutablePointer<Double>?) -> Int32 {
    read(storage, out) { $0.connectTimeout }
}

@_cdecl("fbs_storage_set_loopback_refused_grace")
public func fbs_storage_set_loopback_refused_grace(_ storage: OpaquePointer?, _ seconds: Double) -> Int32 {
    update(storage) { settings throws(StorageError) in
        guard seconds.isFinite, seconds >= 0 else {
            throw StorageError(code: .invalidArgument, message: "loopback refused grace must be 0 or a positive number of seconds")
        }
        settings.loopbackRefusedGrace = seconds
    }
}

@_cdecl("fbs_storage_get_loopback_refused_grace")
public func fbs_storage_get_loopback_refused_grace(_ storage: OpaquePointer?, _ out: UnsafeMutablePointer<Double>?) -> Int32 {
    read(storage, out) { $0.loopbackRefusedGrace }
}

@_cdecl("fbs_storage_set_verify_md5")
public func fbs_storage_set_verify_md5(_ storage: OpaquePointer?, _ enabled: Int32) -> Int32 {
    update(storage) { settings throws(StorageError) in
        guard enabled == 0 || enabled == 1 else { throw StorageError(code: .invalidArgument, message: "enabled must be 0 or 1") }
        settings.verifyMD5 = enabled == 1
    }
}

@_cdecl("fbs_storage_set_ca_file")
public func fbs_storage_set_ca_file(_ storage: OpaquePointer?, _ path: UnsafePointer<CChar>?) -> Int32 {
    update(storage) { settings throws(StorageError) in settings.caFile = try Arguments.optionalString(path, "pem_path") }
}

@_cdecl("fbs_storage_reference")
public func fbs_storage_reference(_ storage: OpaquePointer?, _ path: UnsafePointer<CChar>?,
                                  _ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    Errors.status { () throws(StorageError) in
        let out = try Arguments.out(out)
        let storage = try Storage.behind(storage)
        out.pointee = Handles.make(try storage.reference(Arguments.optionalString(path, "path", isPath: true)))
    }
}

@_cdecl("fbs_storage_reference_for_url")
public func fbs_storage_reference_for_url(_ storage: OpaquePointer?, _ url: UnsafePointer<CChar>?,
                                          _ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    Errors.status { () throws(StorageError) in
        let out = try Arguments.out(out)
        let storage = try Storage.behind(storage)
        out.pointee = Handles.make(try storage.reference(forURL: Arguments.string(url, "url", isPath: true)))
    }
}

@_cdecl("fbs_storage_set_proxy")
public func fbs_storage_set_proxy(_ storage: OpaquePointer?, _ url: UnsafePointer<CChar>?, _ username: UnsafePointer<CChar>?,
                                  _ password: UnsafePointer<CChar>?, _ noProxy: UnsafePointer<CChar>?) -> Int32 {
    update(storage) { settings throws(StorageError) in
        let username = try Arguments.optionalString(username, "username")
        let password = try Arguments.optionalString(password, "password")
        let noProxy = try Arguments.optionalString(noProxy, "no_proxy")
        guard let url = try Arguments.optionalString(url, "url") else {
            guard username == nil, password == nil, noProxy == nil else {
                throw StorageError(code: .invalidArgument, message: "Proxy credentials or no_proxy need a proxy url")
            }
            settings.proxy = nil
            return
        }
        settings.proxy = ProxySettings(url: url, username: username, password: password, noProxy: noProxy)
    }
}

@_cdecl("fbs_storage_set_max_upload_speed")
public func fbs_storage_set_max_upload_speed(_ storage: OpaquePointer?, _ value: Int64) -> Int32 {
    update(storage) { settings throws(StorageError) in settings.uploadSpeedCap.bytesPerSecond = try Arguments.bytesPerSecond(value) }
}

@_cdecl("fbs_storage_get_max_upload_speed")
public func fbs_storage_get_max_upload_speed(_ storage: OpaquePointer?, _ out: UnsafeMutablePointer<Int64>?) -> Int32 {
    read(storage, out) { $0.uploadSpeedCap.bytesPerSecond }
}

@_cdecl("fbs_storage_set_max_download_speed")
public func fbs_storage_set_max_download_speed(_ storage: OpaquePointer?, _ value: Int64) -> Int32 {
    update(storage) { settings throws(StorageError) in settings.downloadSpeedCap.bytesPerSecond = try Arguments.bytesPerSecond(value) }
}

@_cdecl("fbs_storage_get_max_download_speed")
public func fbs_storage_get_max_download_speed(_ storage: OpaquePointer?, _ out: UnsafeMutablePointer<Int64>?) -> Int32 {
    read(storage, out) { $0.downloadSpeedCap.bytesPerSecond }
}
