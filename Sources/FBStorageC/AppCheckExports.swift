import FBStorage

// fbstorage/app_check.h: fbs_app_check_*, and the App Check a storage sends tokens of.

public typealias fbs_app_check_provider = @convention(c) (Int32, OpaquePointer?, UnsafeMutableRawPointer?) -> Void
public typealias fbs_app_check_token_callback = @convention(c) (Int32, UnsafePointer<CChar>?, Int64, UnsafeMutableRawPointer?) -> Void

@_cdecl("fbs_app_check_new")
public func fbs_app_check_new(_ projectID: UnsafePointer<CChar>?, _ appID: UnsafePointer<CChar>?, _ apiKey: UnsafePointer<CChar>?,
                              _ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    Errors.status { () throws(StorageError) in
        let out = try Arguments.out(out)
        let appCheck = try AppCheck(projectID: Arguments.string(projectID, "project_id"), appID: Arguments.string(appID, "app_id"),
                                    apiKey: Arguments.optionalString(apiKey, "api_key"))
        out.pointee = Handles.make(appCheck)
    }
}

/// Token listeners hold C callbacks whose user data goes with the handle (their destroy
/// callbacks run now), while storages may keep the App Check itself alive.
@_cdecl("fbs_app_check_free")
public func fbs_app_check_free(_ appCheck: OpaquePointer?) {
    _ = Errors.status { () throws(StorageError) in
        guard let appCheck = try Handles.release(appCheck) as AppCheck? else { return }
        appCheck.removeAllTokenListeners()
    }
}

@_cdecl("fbs_app_check_use_emulator")
public func fbs_app_check_use_emulator(_ appCheck: OpaquePointer?, _ host: UnsafePointer<CChar>?, _ port: Int32) -> Int32 {
    Errors.status { () throws(StorageError) in
        try AppCheck.behind(appCheck).useEmulator(host: Arguments.string(host, "host"), port: Int(port))
    }
}

@_cdecl("fbs_app_check_set_token_auto_refresh_enabled")
public func fbs_app_check_set_token_auto_refresh_enabled(_ appCheck: OpaquePointer?, _ enabled: Int32) -> Int32 {
    Errors.status { () throws(StorageError) in try AppCheck.behind(appCheck).isTokenAutoRefreshEnabled = enabled != 0 }
}

@_cdecl("fbs_app_check_is_token_auto_refresh_enabled")
public func fbs_app_check_is_token_auto_refresh_enabled(_ appCheck: OpaquePointer?) -> Int32 {
    Errors.returning(-1) { () throws(StorageError) in try AppCheck.behind(appCheck).isTokenAutoRefreshEnabled ? 1 : 0 }
}

@_cdecl("fbs_app_check_set_debug_provider")
public func fbs_app_check_set_debug_provider(_ appCheck: OpaquePointer?, _ debugToken: UnsafePointer<CChar>?) -> Int32 {
    Errors.status { () throws(StorageError) in
        let appCheck = try AppCheck.behind(appCheck)
        appCheck.setProvider(try AppCheckDebugProvider(secret: Arguments.optionalString(debugToken, "debug_token")))
    }
}

@_cdecl("fbs_app_check_set_custom_provider")
public func fbs_app_check_set_custom_provider(_ appCheck: OpaquePointer?, _ provider: fbs_app_check_provider?,
                                             _ userData: UnsafeMutableRawPointer?) -> Int32 {
    fbs_app_check_set_custom_provider_full(appCheck, provider, userData, nil)
}

@_cdecl("fbs_app_check_set_custom_provider_full")
public func fbs_app_check_set_custom_provider_full(_ appCheck: OpaquePointer?, _ provider: fbs_app_check_provider?,
                                                  _ userData: UnsafeMutableRawPointer?, _ destroy: fbs_destroy_notify?) -> Int32 {
    // Owned from here: the provider and every request it was given and has not answered keep it.
    let userData = OwnedUserData(userData, destroy: destroy)
    return Errors.status { () throws(StorageError) in
        let appCheck = try AppCheck.behind(appCheck)
        guard let provider else { return appCheck.setProvider(nil) }
        appCheck.setProvider(AppCheckCustomProvider { limitedUse, request in
            request.holdUntilAnswered(userData)
            // The request handle is the library's: released once answered (fbs_app_check_request_*).
            provider(limitedUse ? 1 : 0, Handles.make(request, owned: false), userData.pointer)
        })
    }
}

/// Answers an App Check token request and releases its handle.
private func answer(_ request: OpaquePointer?, _ body: (AppCheckTokenRequest) throws(StorageError) -> Void) -> Int32 {
    Errors.status { () throws(StorageError) in
        let tokenRequest = try AppCheckTokenRequest.behind(request)
        defer { Handles.releaseLent(request) }
        try body(tokenRequest)
    }
}

@_cdecl("fbs_app_check_request_complete")
public func fbs_app_check_request_complete(_ request: OpaquePointer?, _ token: UnsafePointer<CChar>?, _ expireTimeMs: Int64) -> Int32 {
    answer(request) { tokenRequest throws(StorageError) in
        let value: String
        do throws(StorageError) {
            value = try Arguments.string(token, "token")
        } catch {
            try? tokenRequest.fail(message: error.message)
            throw error
        }
        try tokenRequest.complete(token: value, expiresAt: Double(expireTimeMs) / 1000)
    }
}

@_cdecl("fbs_app_check_request_fail")
public func fbs_app_check_request_fail(_ request: OpaquePointer?, _ message: UnsafePointer<CChar>?) -> Int32 {
    answer(request) { tokenRequest throws(StorageError) in
        try tokenRequest.fail(message: try? Arguments.optionalString(message, "message"))
    }
}

@_cdecl("fbs_app_check_set_token")
public func fbs_app_check_set_token(_ appCheck: OpaquePointer?, _ token: UnsafePointer<CChar>?, _ expireTimeMs: Int64) -> Int32 {
    Errors.status { () throws(StorageError) in
        let appCheck = try AppCheck.behind(appCheck)
        appCheck.setProvider(try MintedAppCheckProvider(token: Arguments.string(token, "token"), expiresAt: Double(expireTimeMs) / 1000))
    }
}

/// A token for C: the string to `outToken` (the caller's), its expiry to `outExpiry` if asked.
private func deliverToken(_ outToken: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ outExpiry: UnsafeMutablePointer<Int64>?,
                          _ fetch: () throws(StorageError) -> AppCheckToken) -> Int32 {
    Errors.status { () throws(StorageError) in
        let out = try Arguments.out(outToken, "out_token")
        let token = try fetch()
        out.pointee = ownedCString(token.token)
        outExpiry?.pointee = milliseconds(token)
    }
}

@_cdecl("fbs_app_check_get_token")
public func fbs_app_check_get_token(_ appCheck: OpaquePointer?, _ forceRefresh: Int32,
                                    _ outToken: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
                                    _ outExpiry: UnsafeMutablePointer<Int64>?) -> Int32 {
    deliverToken(outToken, outExpiry) { () throws(StorageError) in try AppCheck.behind(appCheck).token(forcingRefresh: forceRefresh != 0) }
}

@_cdecl("fbs_app_check_get_limited_use_token")
public func fbs_app_check_get_limited_use_token(_ appCheck: OpaquePointer?,
                                                _ outToken: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
                                                _ outExpiry: UnsafeMutablePointer<Int64>?) -> Int32 {
    deliverToken(outToken, outExpiry) { () throws(StorageError) in try AppCheck.behind(appCheck).limitedUseToken() }
}

/// A token's expiry for C: milliseconds since the Unix epoch.
private func milliseconds(_ token: AppCheckToken) -> Int64 { Int64((token.expiresAt * 1000).rounded(.down)) }

/// Delivers a token to a C callback: the token lent for the call, or NULL with the failure's code.
private func deliver(_ result: Result<AppCheckToken, StorageError>, to cb: fbs_app_check_token_callback,
                     _ userData: UnsafeMutableRawPointer?) {
    switch result {
    case .success(let token): token.token.withCString { cb(0, $0, milliseconds(token), userData) }
    case .failure(let error): cb(error.code.rawValue, nil, 0, userData)
    }
}

@_cdecl("fbs_app_check_get_token_async")
public func fbs_app_check_get_token_async(_ appCheck: OpaquePointer?, _ forceRefresh: Int32, _ cb: fbs_app_check_token_callback?,
                                          _ userData: UnsafeMutableRawPointer?) -> Int32 {
    startAsync(cb, userData, { done throws(StorageError) in
        try AppCheck.behind(appCheck).token(forcingRefresh: forceRefresh != 0, completion: done)
    }) { cb, result, userData in deliver(result, to: cb, userData) }
}

@_cdecl("fbs_app_check_get_limited_use_token_async")
public func fbs_app_check_get_limited_use_token_async(_ appCheck: OpaquePointer?, _ cb: fbs_app_check_token_callback?,
                                                      _ userData: UnsafeMutableRawPointer?) -> Int32 {
    startAsync(cb, userData, { done throws(StorageError) in
        try AppCheck.behind(appCheck).limitedUseToken(completion: done)
    }) { cb, result, userData in deliver(result, to: cb, userData) }
}

// MARK: Token listeners

public typealias fbs_app_check_token_listener = @convention(c) (UnsafePointer<CChar>?, Int64, UnsafeMutableRawPointer?) -> Void

@_cdecl("fbs_app_check_add_token_listener")
public func fbs_app_check_add_token_listener(_ appCheck: OpaquePointer?, _ cb: fbs_app_check_token_listener?,
                                             _ userData: UnsafeMutableRawPointer?, _ destroy: fbs_destroy_notify?,
                                             _ out: UnsafeMutablePointer<Int64>?) -> Int32 {
    // Owned from here: the listener keeps it, so destroy runs when it is removed (or at once on failure).
    let userData = OwnedUserData(userData, destroy: destroy)
    return Errors.status { () throws(StorageError) in
        let appCheck = try AppCheck.behind(appCheck)
        guard let cb else { throw StorageError.invalidArgument("The listener callback is NULL") }
        let out = try Arguments.out(out, "out_handle")
        out.pointee = appCheck.addTokenListener { token in
            token.token.withCString { cb($0, milliseconds(token), userData.pointer) }
        }
    }
}

@_cdecl("fbs_app_check_remove_token_listener")
public func fbs_app_check_remove_token_listener(_ appCheck: OpaquePointer?, _ handle: Int64) -> Int32 {
    Errors.status { () throws(StorageError) in try AppCheck.behind(appCheck).removeTokenListener(handle) }
}

@_cdecl("fbs_storage_use_app_check")
public func fbs_storage_use_app_check(_ storage: OpaquePointer?, _ appCheck: OpaquePointer?) -> Int32 {
    Errors.status { () throws(StorageError) in
        let storage = try Storage.behind(storage)
        storage.use(appCheck: try appCheck.map { pointer throws(StorageError) in try AppCheck.behind(pointer) })
    }
}
