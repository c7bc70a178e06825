import FBStorage

// fbstorage/auth.h: fbs_auth_*, fbs_user_*, and what a storage authenticates with.

public typealias fbs_user_callback = @convention(c) (Int32, OpaquePointer?, UnsafeMutableRawPointer?) -> Void
public typealias fbs_auth_listener = @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?) -> Void
public typealias fbs_token_provider_async = @convention(c) (Int32, OpaquePointer?, UnsafeMutableRawPointer?) -> Void

@_cdecl("fbs_auth_new")
public func fbs_auth_new(_ apiKey: UnsafePointer<CChar>?, _ projectID: UnsafePointer<CChar>?,
                         _ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    Errors.status { () throws(StorageError) in
        let out = try Arguments.out(out)
        let auth = try Auth(apiKey: Arguments.string(apiKey, "api_key"),
                            projectID: Arguments.optionalString(projectID, "project_id"))
        out.pointee = Handles.make(auth)
    }
}

/// Listeners hold C callbacks whose user data the caller may release after this: they go with
/// the handle, while storages may keep the auth itself alive.
@_cdecl("fbs_auth_free")
public func fbs_auth_free(_ auth: OpaquePointer?) {
    _ = Errors.status { () throws(StorageError) in
        guard let auth = try Handles.release(auth) as Auth? else { return }
        auth.removeAllListeners()
    }
}

@_cdecl("fbs_auth_use_emulator")
public func fbs_auth_use_emulator(_ auth: OpaquePointer?, _ host: UnsafePointer<CChar>?, _ port: Int32) -> Int32 {
    Errors.status { () throws(StorageError) in
        try Auth.behind(auth).useEmulator(host: Arguments.string(host, "host"), port: Int(port))
    }
}

@_cdecl("fbs_auth_set_persistence_file")
public func fbs_auth_set_persistence_file(_ auth: OpaquePointer?, _ path: UnsafePointer<CChar>?) -> Int32 {
    Errors.status { () throws(StorageError) in
        try Auth.behind(auth).setPersistenceFile(Arguments.optionalString(path, "path"))
    }
}

@_cdecl("fbs_auth_set_persistence_for_app")
public func fbs_auth_set_persistence_for_app(_ auth: OpaquePointer?, _ program: UnsafePointer<CChar>?,
                                             _ appName: UnsafePointer<CChar>?) -> Int32 {
    Errors.status { () throws(StorageError) in
        try Auth.behind(auth).setPersistence(program: Arguments.string(program, "program"),
                                             appName: Arguments.string(appName, "app_name"))
    }
}

// MARK: Sign-in flows

/// A blocking sign-in: the new user's snapshot goes to `out` when the caller asked for it.
func signIn(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ call: () throws(StorageError) -> AuthUser) -> Int32 {
    Errors.status { () throws(StorageError) in
        let user = try call()
        out?.pointee = Handles.make(user)
    }
}

/// An asynchronous sign-in: `cb` gets the new user, lent for the call.
func signInAsync(_ cb: fbs_user_callback?, _ userData: UnsafeMutableRawPointer?,
                         _ start: (@escaping StorageCompletion<AuthUser>) throws(StorageError) -> Void) -> Int32 {
    startAsync(cb, userData, start) { cb, result, userData in
        Handles.lend(try? result.get()) { cb(code(result), $0, userData) }
    }
}

@_cdecl("fbs_auth_sign_in_anonymously")
public func fbs_auth_sign_in_anonymously(_ auth: OpaquePointer?, _ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    signIn(out) { () throws(StorageError) in try Auth.behind(auth).signInAnonymously() }
}

@_cdecl("fbs_auth_sign_in_anonymously_async")
public func fbs_auth_sign_in_anonymously_async(_ auth: OpaquePointer?, _ cb: fbs_user_callback?,
                                               _ userData: UnsafeMutableRawPointer?) -> Int32 {
    signInAsync(cb, userData) { done throws(StorageError) in try Auth.behind(auth).signInAnonymously(completion: done) }
}

@_cdecl("fbs_auth_create_user")
public func fbs_auth_create_user(_ auth: OpaquePointer?, _ email: UnsafePointer<CChar>?, _ password: UnsafePointer<CChar>?,
                                 _ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    signIn(out) { () throws(StorageError) in
        try Auth.behind(auth).createUser(email: Arguments.string(email, "email"), password: Arguments.string(password, "password"))
    }
}

@_cdecl("fbs_auth_create_user_async")
public func fbs_auth_create_user_async(_ auth: OpaquePointer?, _ email: UnsafePointer<CChar>?, _ password: UnsafePointer<CChar>?,
                                       _ cb: fbs_user_callback?, _ userData: UnsafeMutableRawPointer?) -> Int32 {
    signInAsync(cb, userData) { done throws(StorageError) in
        try Auth.behind(auth).createUser(email: Arguments.string(email, "email"), password: Arguments.string(password, "password"),
                                         completion: done)
    }
}

@_cdecl("fbs_auth_sign_in_with_email")
public func fbs_auth_sign_in_with_email(_ auth: OpaquePointer?, _ email: UnsafePointer<CChar>?, _ password: UnsafePointer<CChar>?,
                                        _ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    signIn(out) { () throws(StorageError) in
        try Auth.behind(auth).signIn(email: Arguments.string(email, "email"), password: Arguments.string(password, "password"))
    }
}

@_cdecl("fbs_auth_sign_in_with_email_async")
public func fbs_auth_sign_in_with_email_async(_ auth: OpaquePointer?, _ email: UnsafePointer<CChar>?, _ password: UnsafePointer<CChar>?,
                                              _ cb: fbs_user_callback?, _ userData: UnsafeMutableRawPointer?) -> Int32 {
    signInAsync(cb, userData) { done throws(StorageError) in
        try Auth.behind(auth).signIn(email: Arguments.string(email, "email"), password: Arguments.string(password, "password"),
                                     completion: done)
    }
}

@_cdecl("fbs_auth_sign_in_with_custom_token")
public func fbs_auth_sign_in_with_custom_token(_ auth: OpaquePointer?, _ token: UnsafePointer<CChar>?,
                                               _ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    signIn(out) { () throws(StorageError) in try Auth.behind(auth).signIn(customToken: Arguments.string(token, "token")) }
}

@_cdecl("fbs_auth_sign_in_with_custom_token_async")
public func fbs_auth_sign_in_with_custom_token_async(_ auth: OpaquePointer?, _ token: UnsafePointer<CChar>?,
                                                     _ cb: fbs_user_callback?, _ userData: UnsafeMutableRawPointer?) -> Int32 {
    signInAsync(cb, userData) { done throws(StorageError) in
        try Auth.behind(auth).signIn(customToken: Arguments.string(token, "token"), completion: done)
    }
}

@_cdecl("fbs_auth_sign_in_with_refresh_token")
public func fbs_auth_sign_in_with_refresh_token(_ auth: OpaquePointer?, _ token: UnsafePointer<CChar>?,
                                                _ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    signIn(out) { () throws(StorageError) in try Auth.behind(auth).signIn(refreshToken: Arguments.string(token, "refresh_token")) }
}

@_cdecl("fbs_auth_sign_in_with_refresh_token_async")
public func fbs_auth_sign_in_with_refresh_token_async(_ auth: OpaquePointer?, _ token: UnsafePointer<CChar>?,
                                                      _ cb: fbs_user_callback?, _ userData: UnsafeMutableRawPointer?) -> Int32 {
    signInAsync(cb, userData) { done throws(StorageError) in
        try Auth.behind(auth).signIn(refreshToken: Arguments.string(token, "refresh_token"), completion: done)
    }
}

@_cdecl("fbs_auth_sign_out")
public func fbs_auth_sign_out(_ auth: OpaquePointer?) -> Int32 {
    Errors.status { () throws(StorageError) in try Auth.behind(auth).signOut() }
}

@_cdecl("fbs_auth_delete_user")
public func fbs_auth_delete_user(_ auth: OpaquePointer?) -> Int32 {
    Errors.status { () throws(StorageError) in try Auth.behind(auth).deleteUser() }
}

@_cdecl("fbs_auth_delete_user_async")
public func fbs_auth_delete_user_async(_ auth: OpaquePointer?, _ cb: fbs_completion_callback?, _ userData: UnsafeMutableRawPointer?) -> Int32 {
    startAsync(cb, userData, { done throws(StorageError) in try Auth.behind(auth).deleteUser(completion: done) }) { cb, result, userData in
        cb(code(result), userData)
    }
}

@_cdecl("fbs_auth_update_profile")
public func fbs_auth_update_profile(_ auth: OpaquePointer?, _ displayName: UnsafePointer<CChar>?, _ photoURL: UnsafePointer<CChar>?,
                                    _ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    signIn(out) { () throws(StorageError) in
        try Auth.behind(auth).updateProfile(displayName: ProfileChange(optional: Arguments.optionalString(displayName, "display_name")),
                                            photoURL: ProfileChange(optional: Arguments.optionalString(photoURL, "photo_url")))
    }
}

@_cdecl("fbs_auth_update_profile_async")
public func fbs_auth_update_profile_async(_ auth: OpaquePointer?, _ displayName: UnsafePointer<CChar>?, _ photoURL: UnsafePointer<CChar>?,
                                          _ cb: fbs_user_callback?, _ userData: UnsafeMutableRawPointer?) -> Int32 {
    signInAsync(cb, userData) { done throws(StorageError) in
        try Auth.behind(auth).updateProfile(displayName: ProfileChange(optional: Arguments.optionalString(displayName, "display_name")),
                                            photoURL: ProfileChange(optional: Arguments.optionalString(photoURL, "photo_url")),
                                            completion: done)
    }
}

@_cdecl("fbs_auth_current_user")
public func fbs_auth_current_user(_ auth: OpaquePointer?, _ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    Errors.status { () throws(StorageError) in
        let out = try Arguments.out(out)
        out.pointee = try Auth.behind(auth).currentUser.map { Handles.make($0) }
    }
}

@_cdecl("fbs_auth_get_id_token")
public func fbs_auth_get_id_token(_ auth: OpaquePointer?, _ forceRefresh: Int32, _ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    Errors.status { () throws(StorageError) in
        let out = try Arguments.out(out, "out_token")
        out.pointee = ownedCString(try Auth.behind(auth).idToken(forceRefresh: forceRefresh != 0))
    }
}

@_cdecl("fbs_auth_get_id_token_async")
public func fbs_auth_get_id_token_async(_ auth: OpaquePointer?, _ forceRefresh: Int32, _ cb: fbs_string_callback?,
                                        _ userData: UnsafeMutableRawPointer?) -> Int32 {
    startAsync(cb, userData, { done throws(StorageError) in
        try Auth.behind(auth).idToken(forceRefresh: forceRefresh != 0, completion: done)
    }) { cb, result, userData in deliver(result, to: cb, userData) }
}

// MARK: Listeners

private func addListener(_ auth: OpaquePointer?, _ kind: Auth.ListenerKind, _ cb: fbs_auth_listener?,
                         _ userData: UnsafeMutableRawPointer?, _ out: UnsafeMutablePointer<Int64>?) -> Int32 {
    Errors.status { () throws(StorageError) in
        let auth = try Auth.behind(auth)
        guard let cb else { throw StorageError.invalidArgument("The listener callback is NULL") }
        let userData = UserData(pointer: userData)
        let handle = auth.addListener(kind) { user in Handles.lend(user) { cb($0, userData.pointer) } }
        out?.pointee = handle
    }
}

@_cdecl("fbs_auth_add_state_listener")
public func fbs_auth_add_state_listener(_ auth: OpaquePointer?, _ cb: fbs_auth_listener?, _ userData: UnsafeMutableRawPointer?,
                                        _ out: UnsafeMutablePointer<Int64>?) -> Int32 {
    addListener(auth, .state, cb, userData, out)
}

@_cdecl("fbs_auth_add_id_token_listener")
public func fbs_auth_add_id_token_listener(_ auth: OpaquePointer?, _ cb: fbs_auth_listener?, _ userData: UnsafeMutableRawPointer?,
                                           _ out: UnsafeMutablePointer<Int64>?) -> Int32 {
    addListener(auth, .idToken, cb, userData, out)
}

@_cdecl("fbs_auth_remove_listener")
public func fbs_auth_remove_listener(_ auth: OpaquePointer?, _ handle: Int64) -> Int32 {
    Errors.status { () throws(StorageError) in try Auth.behind(auth).removeListener(handle) }
}

// MARK: User snapshots

@_cdecl("fbs_user_uid")
public func fbs_user_uid(_ u: OpaquePointer?) -> UnsafePointer<CChar>? { AuthUser.lentString(u, .uid) { $0.uid } }

@_cdecl("fbs_user_email")
public func fbs_user_email(_ u: OpaquePointer?) -> UnsafePointer<CChar>? { AuthUser.lentString(u, .email) { $0.email } }

@_cdecl("fbs_user_display_name")
public func fbs_user_display_name(_ u: OpaquePointer?) -> UnsafePointer<CChar>? { AuthUser.lentString(u, .displayName) { $0.displayName } }

@_cdecl("fbs_user_photo_url")
public func fbs_user_photo_url(_ u: OpaquePointer?) -> UnsafePointer<CChar>? { AuthUser.lentString(u, .photoURL) { $0.photoURL } }

@_cdecl("fbs_user_is_email_verified")
public func fbs_user_is_email_verified(_ u: OpaquePointer?) -> Int32 {
    Errors.returning(-1) { () throws(StorageError) in try AuthUser.behind(u).isEmailVerified ? 1 : 0 }
}

@_cdecl("fbs_user_is_anonymous")
public func fbs_user_is_anonymous(_ u: OpaquePointer?) -> Int32 {
    Errors.returning(-1) { () throws(StorageError) in try AuthUser.behind(u).isAnonymous ? 1 : 0 }
}

@_cdecl("fbs_user_is_new_user")
public func fbs_user_is_new_user(_ u: OpaquePointer?) -> Int32 {
    Errors.returning(-1) { () throws(StorageError) in
        guard let info = try AuthUser.behind(u).additionalUserInfo else { return -1 }
        return info.isNewUser ? 1 : 0
    }
}

@_cdecl("fbs_user_additional_provider_id")
public func fbs_user_additional_provider_id(_ u: OpaquePointer?) -> UnsafePointer<CChar>? {
    AuthUser.lentString(u, .additionalProviderID) { $0.additionalUserInfo?.providerID }
}

@_cdecl("fbs_user_additional_profile_json")
public func fbs_user_additional_profile_json(_ u: OpaquePointer?) -> UnsafePointer<CChar>? {
    AuthUser.lentString(u, .additionalProfileJSON) { $0.additionalUserInfo?.profileJSON }
}

@_cdecl("fbs_user_additional_username")
public func fbs_user_additional_username(_ u: OpaquePointer?) -> UnsafePointer<CChar>? {
    AuthUser.lentString(u, .additionalUsername) { $0.additionalUserInfo?.username }
}

@_cdecl("fbs_user_sign_in_provider")
public func fbs_user_sign_in_provider(_ u: OpaquePointer?) -> UnsafePointer<CChar>? {
    AuthUser.lentString(u, .signInProvider) { $0.signInProvider }
}

@_cdecl("fbs_user_id_token")
public func fbs_user_id_token(_ u: OpaquePointer?) -> UnsafePointer<CChar>? { AuthUser.lentString(u, .idToken) { $0.idToken } }

@_cdecl("fbs_user_refresh_token")
public func fbs_user_refresh_token(_ u: OpaquePointer?) -> UnsafePointer<CChar>? {
    AuthUser.lentString(u, .refreshToken) { $0.refreshToken }
}

@_cdecl("fbs_user_claims_json")
public func fbs_user_claims_json(_ u: OpaquePointer?) -> UnsafePointer<CChar>? { AuthUser.lentString(u, .claims) { $0.claimsJSON } }

private func millis(_ u: OpaquePointer?, _ get: (AuthUser) -> Double?) -> Int64 {
    Errors.returning(Int64.min) { () throws(StorageError) in
        try get(AuthUser.behind(u)).map { Int64(($0 * 1000).rounded()) } ?? Int64.min
    }
}

@_cdecl("fbs_user_token_expiration")
public func fbs_user_token_expiration(_ u: OpaquePointer?) -> Int64 { millis(u) { $0.expiration } }

@_cdecl("fbs_user_token_issued_at")
public func fbs_user_token_issued_at(_ u: OpaquePointer?) -> Int64 { millis(u) { $0.issuedAt } }

@_cdecl("fbs_user_auth_time")
public func fbs_user_auth_time(_ u: OpaquePointer?) -> Int64 { millis(u) { $0.authTime } }

// The account's sign-in methods and dates.

@_cdecl("fbs_user_provider_count")
public func fbs_user_provider_count(_ u: OpaquePointer?) -> Int {
    Errors.returning(0) { () throws(StorageError) in try AuthUser.behind(u).providers.count }
}

/// A field of the sign-in method at `index`, lent from the snapshot.
private func providerField(_ u: OpaquePointer?, _ index: Int, _ name: String,
                           _ get: (AuthProviderInfo) -> String?) -> UnsafePointer<CChar>? {
    AuthUser.lentString(u, .providerField(index: index, name: name)) { user in
        index >= 0 && index < user.providers.count ? get(user.providers[index]) : nil
    }
}

@_cdecl("fbs_user_provider_id")
public func fbs_user_provider_id(_ u: OpaquePointer?, _ index: Int) -> UnsafePointer<CChar>? {
    providerField(u, index, "providerId") { $0.providerID }
}

@_cdecl("fbs_user_provider_uid")
public func fbs_user_provider_uid(_ u: OpaquePointer?, _ index: Int) -> UnsafePointer<CChar>? {
    providerField(u, index, "uid") { $0.uid }
}

@_cdecl("fbs_user_provider_email")
public func fbs_user_provider_email(_ u: OpaquePointer?, _ index: Int) -> UnsafePointer<CChar>? {
    providerField(u, index, "email") { $0.email }
}

@_cdecl("fbs_user_provider_display_name")
public func fbs_user_provider_display_name(_ u: OpaquePointer?, _ index: Int) -> UnsafePointer<CChar>? {
    providerField(u, index, "displayName") { $0.displayName }
}

@_cdecl("fbs_user_provider_photo_url")
public func fbs_user_provider_photo_url(_ u: OpaquePointer?, _ index: Int) -> UnsafePointer<CChar>? {
    providerField(u, index, "photoURL") { $0.photoURL }
}

@_cdecl("fbs_user_provider_phone_number")
public func fbs_user_provider_phone_number(_ u: OpaquePointer?, _ index: Int) -> UnsafePointer<CChar>? {
    providerField(u, index, "phoneNumber") { $0.phoneNumber }
}

@_cdecl("fbs_user_creation_time")
public func fbs_user_creation_time(_ u: OpaquePointer?) -> Int64 { millis(u) { $0.creationTime } }

@_cdecl("fbs_user_last_sign_in_time")
public func fbs_user_last_sign_in_time(_ u: OpaquePointer?) -> Int64 { millis(u) { $0.lastSignInTime } }

@_cdecl("fbs_user_free")
public func fbs_user_free(_ u: OpaquePointer?) { AuthUser.free(u) }

// MARK: What a storage authenticates with

@_cdecl("fbs_storage_use_auth")
public func fbs_storage_use_auth(_ storage: OpaquePointer?, _ auth: OpaquePointer?) -> Int32 {
    Errors.status { () throws(StorageError) in
        let storage = try Storage.behind(storage)
        storage.use(tokenSource: try auth.map { pointer throws(StorageError) in try Auth.behind(pointer) })
    }
}

@_cdecl("fbs_storage_set_auth_token_provider_async")
public func fbs_storage_set_auth_token_provider_async(_ storage: OpaquePointer?, _ provider: fbs_token_provider_async?,
                                                     _ userData: UnsafeMutableRawPointer?) -> Int32 {
    fbs_storage_set_auth_token_provider_async_full(storage, provider, userData, nil)
}

@_cdecl("fbs_storage_set_auth_token_provider_async_full")
public func fbs_storage_set_auth_token_provider_async_full(_ storage: OpaquePointer?, _ provider: fbs_token_provider_async?,
                                                          _ userData: UnsafeMutableRawPointer?,
                                                          _ destroy: fbs_destroy_notify?) -> Int32 {
    // Owned from here: the provider and every request it was given and has not answered keep it.
    let userData = OwnedUserData(userData, destroy: destroy)
    return Errors.status { () throws(StorageError) in
        let storage = try Storage.behind(storage)
        guard let provider else { return storage.setAuthTokenProvider(async: nil) }
        storage.setAuthTokenProvider(async: { forceRefresh, request in
            request.holdUntilAnswered(userData)
            // The request handle is the library's: released once answered (fbs_token_request_*).
            provider(forceRefresh ? 1 : 0, Handles.make(request, owned: false), userData.pointer)
        })
    }
}

/// Answers a token request and releases its handle.
private func answer(_ request: OpaquePointer?, _ body: (TokenRequest) throws(StorageError) -> Void) -> Int32 {
    Errors.status { () throws(StorageError) in
        let tokenRequest = try TokenRequest.behind(request)
        defer { Handles.releaseLent(request) }
        try body(tokenRequest)
    }
}

@_cdecl("fbs_token_request_complete")
public func fbs_token_request_complete(_ request: OpaquePointer?, _ token: UnsafePointer<CChar>?) -> Int32 {
    answer(request) { tokenRequest throws(StorageError) in
        let value: String?
        do throws(StorageError) {
            value = try Arguments.optionalString(token, "token")
        } catch {
            try? tokenRequest.fail(with: error)   // the waiting request fails with the same error
            throw error
        }
        try tokenRequest.complete(token: value)
    }
}

@_cdecl("fbs_token_request_fail")
public func fbs_token_request_fail(_ request: OpaquePointer?, _ message: UnsafePointer<CChar>?) -> Int32 {
    answer(request) { tokenRequest throws(StorageError) in
        try tokenRequest.fail(message: Arguments.optionalString(message, "message"))
    }
}
